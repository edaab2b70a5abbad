"""The Guildhall gateway: match lifecycle, event store, routing to rules services."""
