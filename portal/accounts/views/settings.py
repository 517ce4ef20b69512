"""An organization's settings (admins: name, default language, time zone, country for
formats) and a member's own time zone in it (every member, for themselves)."""

from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import login_required
from wtforms.fields import SelectChoice

from portal.accounts.forms import MyTimeZoneForm, OrganizationProfileForm
from portal.accounts.services import settings as org_settings
from portal.accounts.views import settings_bp
from portal.config import SUPPORTED_LOCALES
from portal.core.territories import territory_names
from portal.domain.errors import DomainError
from portal.domain.time_zones import time_zone_names
from portal.web.auth import admin_required
from portal.web.forms import attach_error
from portal.web.i18n import LOCALE_NAMES
from portal.web.tenancy import current_actor


def _zone_choices() -> list[SelectChoice]:
    return [SelectChoice(name, name.replace("_", " ")) for name in time_zone_names()]


def _profile_choices(form: OrganizationProfileForm) -> OrganizationProfileForm:
    form.default_locale.choices = [
        SelectChoice(code, LOCALE_NAMES[code]) for code in SUPPORTED_LOCALES
    ]
    form.time_zone.choices = _zone_choices()
    form.territory.choices = [
        SelectChoice("", _("None: the language's own formats")),
        *(
            SelectChoice(code, f"{name} ({code})")
            for code, name in territory_names(str(get_locale()))
        ),
    ]
    return form


@settings_bp.route("/", methods=["GET", "POST"])
@admin_required
def organization() -> ResponseReturnValue:
    actor = current_actor()
    if request.method == "GET":
        saved = org_settings.get_organization_settings(actor)
        form = OrganizationProfileForm(
            formdata=None,
            data={
                "name": saved.name,
                "default_locale": saved.default_locale,
                "time_zone": saved.time_zone,
                "territory": saved.territory or "",
                "reminder_lead": org_settings.reminder_lead_text(saved.reminder_lead_minutes),
            },
        )
        return render_template("accounts/settings.html", form=_profile_choices(form), saved=saved)
    form = OrganizationProfileForm()
    if form.validate_on_submit():
        try:
            org_settings.update_organization_settings(
                actor,
                name=form.name.data or "",
                default_locale=form.default_locale.data or "",
                time_zone=form.time_zone.data or "",
                territory=form.territory.data or None,
                # A form without the field (an older page) keeps the lead as it is.
                reminder_lead=(form.reminder_lead.data or "")
                if "reminder_lead" in request.form
                else None,
            )
        except DomainError as error:
            attach_error(form, error)
        else:
            flash(_("Settings saved."), "success")
            return redirect(url_for(".organization"), code=303)
    return render_template("accounts/settings.html", form=_profile_choices(form), saved=None), 422


def _my_page(
    form: MyTimeZoneForm, mine: org_settings.MySettings, status: int = 200
) -> ResponseReturnValue:
    form.time_zone.choices = [
        SelectChoice("", _("Use the organization's (%(zone)s)", zone=mine.org_time_zone)),
        *_zone_choices(),
    ]
    return render_template("accounts/my_settings.html", form=form, mine=mine), status


@settings_bp.route("/mine", methods=["GET", "POST"])
@login_required
def mine() -> ResponseReturnValue:
    actor = current_actor()
    if request.method == "GET":
        mine = org_settings.get_my_settings(actor)
        form = MyTimeZoneForm(formdata=None, data={"time_zone": mine.own_time_zone or ""})
        return _my_page(form, mine)
    form = MyTimeZoneForm()
    if form.validate_on_submit():
        org_settings.set_my_time_zone(actor, form.time_zone.data or None)
        flash(_("Your time zone is saved."), "success")
        return redirect(url_for(".mine"), code=303)
    return _my_page(form, org_settings.get_my_settings(actor), 422)
