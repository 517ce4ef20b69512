from portal.accounts import queries as account_queries


def test_two_orgs_exist_and_are_separate(acme, globex):
    names = [m.name for m in account_queries.list_members(acme.admin.actor)]
    assert names == ["Alice Admin"]
    assert [m.name for m in account_queries.list_members(globex.admin.actor)] == ["Gus Globex"]
