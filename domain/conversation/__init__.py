"""The WhatsApp booking conversation of seed 001: numbered menus, the customer's words, and the bot's use case."""
