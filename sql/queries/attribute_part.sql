-- Attribution's share of a fold, for one part of one app's queue ($2 from 0 to
-- tapwire_attribution_parts() - 1): beside the same app's other parts on other connections,
-- under the part's lock only; returns how many credits changed (migration 0328).
SELECT tapwire_attribute_pending($1::bigint, $2::integer)
