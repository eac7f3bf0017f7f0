"""The venue's layout, changed by its owners and managers through the API (issue 18): resources and their groups
(`resources`), weekly opening hours and dated exceptions — closed days and special hours (`hours`), and grid blocks
that take a resource out of sale for a range (`blocks`). Every change is refused by a typed error naming the field,
refused when it would orphan live bookings (`BookingsInTheWay`, listing them), and noted in the venue log in the
same transaction (domain/venue_log.py). The SQL is store/layout.py's, behind `LayoutRepository` (ports.py)."""
