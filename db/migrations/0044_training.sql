-- Training plan items (issue 41): filled by the training work.
SELECT 1;
