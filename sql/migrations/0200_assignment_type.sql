-- 0200: a holdout's assignments (which devices a campaign treated and which it held out) are
-- events of their own type (docs/holdouts.md). A value added to an enum cannot be used in the
-- transaction that adds it, so this migration only adds it; 0201 builds on it.
ALTER TYPE event_type ADD VALUE IF NOT EXISTS 'assignment';
