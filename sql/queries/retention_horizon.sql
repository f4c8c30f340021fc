-- Raw events are complete from this instant on (NULL: retention never dropped anything).
SELECT tapwire_retention_horizon()
