-- `tapwire apps attribution`: app $1's windows set to $2 (direct) and $3 (influence) seconds and
-- every conversion of the app queued for attribution again; returns how many (0171).
SELECT tapwire_set_attribution_windows($1::bigint, make_interval(secs => $2::bigint), make_interval(secs => $3::bigint))
