-- Ranks on board (issue 41): filled by the ranks work.
SELECT 1;
