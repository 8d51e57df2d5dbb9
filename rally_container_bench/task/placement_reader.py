"""Resource providers' inventories and usages from Placement's API.

With a Rally credential (the admin's: Placement's default policy reads
providers for admins only), through its keystone session.
"""

HEADERS = {"OpenStack-API-Version": "placement 1.10"}


def providers(credential, names):
    """{name: {"inventories", "usages"}} of the providers of these names."""
    session = credential.clients().keystone.get_session()[0]
    where = {"service_type": "placement",
             "interface": credential.endpoint_type or "public",
             "region_name": credential.region_name}

    def get(path):
        response = session.get(path, endpoint_filter=where, headers=HEADERS)
        return response.json()
    found = {}
    for provider in get("/resource_providers")["resource_providers"]:
        if provider["name"] not in names:
            continue
        path = "/resource_providers/%s" % provider["uuid"]
        found[provider["name"]] = {
            "inventories": get(path + "/inventories")["inventories"],
            "usages": get(path + "/usages")["usages"]}
    return found
