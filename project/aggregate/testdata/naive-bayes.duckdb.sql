-- Bernstein Release aggregate query (issue 20): naive-bayes, 2 feature columns, B = 1024 bins per axis, dialect duckdb.
-- Written from public inputs only (bounds, fill values, classes, bins); run it where the data live
-- and give its result table to bernstein. docs/aggregates.md explains every step.
WITH src AS (
  SELECT TRIM(CAST("x" AS VARCHAR)) AS t1,
         TRIM(CAST("z" AS VARCHAR)) AS t2,
         TRIM(CAST("outcome" AS VARCHAR)) AS ty
  FROM "records"
), parsed AS (
  SELECT CASE WHEN regexp_matches(t1, '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$') THEN TRY_CAST(t1 AS DOUBLE) END AS p1,
         CASE WHEN regexp_matches(t2, '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$') THEN TRY_CAST(t2 AS DOUBLE) END AS p2,
         CASE WHEN ty = '0' THEN -1 WHEN ty = 'yes' THEN 1 WHEN CASE WHEN regexp_matches(ty, '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$') THEN TRY_CAST(ty AS DOUBLE) END = 0e+00 THEN -1 ELSE -1 END AS py
  FROM src
), filled AS (
  SELECT CASE WHEN p1 BETWEEN (-1.7976931348623157e+308) AND 1.7976931348623157e+308 THEN p1 ELSE 5e-01 END AS v1,
         CASE WHEN p2 BETWEEN (-1.7976931348623157e+308) AND 1.7976931348623157e+308 THEN p2 ELSE 0e+00 END AS v2,
         py AS y
  FROM parsed
), mapped AS (
  SELECT CASE WHEN v1 < 0e+00 THEN 0 WHEN v1 > 1e+00 THEN 1 ELSE LEAST(GREATEST((v1 - 0e+00) / (1e+00 - 0e+00), 0), 1) END AS x1,
         CASE WHEN v2 < (-3e+00) THEN 0 WHEN v2 > 3e+00 THEN 1 ELSE LEAST(GREATEST((v2 - (-3e+00)) / (3e+00 - (-3e+00)), 0), 1) END AS x2,
         y
  FROM filled
), binned AS (
  SELECT LEAST(CAST(FLOOR(x1 * 1024) AS BIGINT), 1023) AS b1,
         LEAST(CAST(FLOOR(x2 * 1024) AS BIGINT), 1023) AS b2,
         y
  FROM mapped
)
SELECT CAST(y AS BIGINT) AS class, 1 AS feature, b1 AS bin, COUNT(*) AS records FROM binned GROUP BY y, b1
UNION ALL
SELECT CAST(y AS BIGINT) AS class, 2 AS feature, b2 AS bin, COUNT(*) AS records FROM binned GROUP BY y, b2
ORDER BY class, feature, bin;
