-- 0160: conversions, the outcomes an app counts (a purchase, a signup), are events of their own
-- type (docs/outcomes.md). A value added to an enum cannot be used in the transaction that adds
-- it, so this migration only adds it; 0161 builds on it.
ALTER TYPE event_type ADD VALUE IF NOT EXISTS 'conversion';
