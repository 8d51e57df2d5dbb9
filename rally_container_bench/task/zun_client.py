"""The "zun" client in Rally's OpenStack clients (rally-openstack has none).

``self.clients("zun")`` in a scenario: python-zunclient on the
environment's keystone session, the API microversion negotiated with the
server ("1.latest": the highest both sides speak).
"""

from rally_openstack.common import osclients


@osclients.configure("zun", default_version="1.latest",
                     default_service_type="container")
class Zun(osclients.OSClient):
    """python-zunclient, authenticated by Rally's keystone session."""

    def create_client(self, version=None, service_type=None):
        from zunclient import client as zun_client

        return zun_client.Client(
            version=self.choose_version(version),
            session=self.keystone.get_session()[0],
            endpoint_override=self._get_endpoint(service_type))
