"""The members admin pages: who belongs, their roles, invitations (sent, resent,
revoked) and the organization's sign-in rule for admins. An admin never sees or sets
anyone's password: people join through the link the invitation mails them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import flash, redirect, render_template, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from flask_login import current_user

from portal.accounts import queries as account_queries
from portal.accounts.forms import ConfirmForm, InviteForm, OrganizationSettingsForm, RolesForm
from portal.accounts.services import invitations, organizations, people
from portal.accounts.views import admin_bp
from portal.domain.errors import DomainError, NotFound
from portal.web.auth import admin_required
from portal.web.forms import attach_error
from portal.web.messages import message_for
from portal.web.tenancy import current_actor


def _members_page(
    form: InviteForm | None = None,
    status: int = 200,
    *,
    settings: OrganizationSettingsForm | None = None,
) -> ResponseReturnValue:
    actor = current_actor()
    # The organization's own setting came with the signed-in user's memberships.
    required = account_queries.admin_two_factor_required(current_user.memberships, actor.org_slug)
    page = render_template(
        "accounts/members.html",
        overview=invitations.members_overview(actor),
        form=form or InviteForm(),
        settings=settings or OrganizationSettingsForm(data={"require_admin_two_factor": required}),
        confirm=ConfirmForm(),
    )
    return page, status


@admin_bp.get("/")
@admin_required
def members() -> ResponseReturnValue:
    return _members_page()


@admin_bp.post("/invitations")
@admin_required
def invite() -> ResponseReturnValue:
    form = InviteForm()
    if not form.validate_on_submit():
        return _members_page(form, 422)
    email = (form.email.data or "").strip()
    try:
        invitations.invite_member(
            current_actor(), email=email, name=form.name.data or "", roles=form.roles()
        )
    except DomainError as error:
        attach_error(form, error)
        return _members_page(form, 422)
    # The same words whether or not the address has an account anywhere; and a redirect,
    # so reloading the page does not send the mail again.
    flash(_("An invitation is on its way to %(email)s.", email=email.lower()), "success")
    return redirect(url_for(".members"), code=303)


def _invitation_change(
    change: Callable[[Any, int], list[invitations.InvitationRow]],
    invitation_id: int,
    done: str,
) -> ResponseReturnValue:
    if ConfirmForm().validate_on_submit():
        try:
            change(current_actor(), invitation_id)
        except NotFound:
            raise
        except DomainError as error:
            flash(message_for(error), "error")
        else:
            flash(done, "success")
    return redirect(url_for(".members"), code=303)


@admin_bp.post("/invitations/<int:invitation_id>/resend")
@admin_required
def resend(invitation_id: int) -> ResponseReturnValue:
    return _invitation_change(
        invitations.resend_invitation,
        invitation_id,
        _("The invitation was sent again with a new link; the earlier link no longer works."),
    )


@admin_bp.post("/invitations/<int:invitation_id>/revoke")
@admin_required
def revoke(invitation_id: int) -> ResponseReturnValue:
    return _invitation_change(
        invitations.revoke_invitation,
        invitation_id,
        _("The invitation was revoked; its link no longer works."),
    )


@admin_bp.post("/settings")
@admin_required
def settings() -> ResponseReturnValue:
    form = OrganizationSettingsForm()
    if form.validate_on_submit():
        try:
            organizations.set_admin_two_factor(
                current_actor(), required=bool(form.require_admin_two_factor.data)
            )
        except DomainError as error:
            attach_error(form, error)
            return _members_page(status=422, settings=form)
        flash(_("Sign-in settings saved."), "success")
    return redirect(url_for(".members"), code=303)


# --- one member -------------------------------------------------------------------------


@admin_bp.get("/<int:member_id>")
@admin_required
def member(member_id: int) -> ResponseReturnValue:
    row = account_queries.get_member(current_actor(), member_id)
    form = RolesForm(data={"admin": "admin" in row.roles, "auditor": "auditor" in row.roles})
    return render_template("accounts/member.html", member=row, form=form, confirm=ConfirmForm())


@admin_bp.post("/<int:member_id>/roles")
@admin_required
def set_roles(member_id: int) -> ResponseReturnValue:
    form = RolesForm()
    actor = current_actor()
    if form.validate_on_submit():
        try:
            people.set_member_roles(actor, member_id, form.roles())
        except DomainError as error:
            attach_error(form, error)
        else:
            flash(_("Roles saved."), "success")
            return redirect(url_for("members.member", member_id=member_id))
    row = account_queries.get_member(actor, member_id)
    page = render_template("accounts/member.html", member=row, form=form, confirm=ConfirmForm())
    return page, 422


def _status_change(
    member_id: int, change: Callable[[Any, int], object], done_message: str
) -> ResponseReturnValue:
    form = ConfirmForm()
    if form.validate_on_submit():
        try:
            change(current_actor(), member_id)
        except NotFound:
            raise  # another organization's member: 404, as everywhere else
        except DomainError as error:
            flash(message_for(error), "error")
            return redirect(url_for("members.member", member_id=member_id), code=303)
        flash(done_message, "success")
    return redirect(url_for("members.member", member_id=member_id))


@admin_bp.post("/<int:member_id>/deactivate")
@admin_required
def deactivate(member_id: int) -> ResponseReturnValue:
    return _status_change(member_id, people.deactivate_member, _("Membership deactivated."))


@admin_bp.post("/<int:member_id>/reactivate")
@admin_required
def reactivate(member_id: int) -> ResponseReturnValue:
    return _status_change(member_id, people.reactivate_member, _("Membership reactivated."))
