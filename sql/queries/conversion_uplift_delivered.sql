-- Attribution's share of a fold, first part, for one app: adds the queued changes of delivered in
-- strata to the conversions converted in them, under the app's attribution lock; returns how many
-- changes it took (migration 0180).
SELECT tapwire_conversion_uplift_delivered($1::bigint)
