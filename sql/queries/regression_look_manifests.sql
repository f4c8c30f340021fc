-- The digest of one app's manifests in force, stored with a look taken after reading it.
SELECT tapwire_manifests_state($1::bigint)
