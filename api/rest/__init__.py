"""The REST door (/v1): the core booking flow over plain HTTP, each endpoint a fixed GraphQL document run in-process
with the GraphQL view's context (api/rest/routes.py)."""

from api.rest.routes import rest_routes

__all__ = ["rest_routes"]
