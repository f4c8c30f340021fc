-- `tapwire-bench holdouts`: seeds this session's random() (a number in [-1, 1]) before holdout_generate.sql.
SELECT setseed($1::double precision)
