-- Bernstein Release aggregate query (issue 20): ridge, 2 feature columns, dialect duckdb.
-- Written from public inputs only (bounds, fill values, classes, bins); run it where the data live
-- and give its result table to bernstein. docs/aggregates.md explains every step.
WITH src AS (
  SELECT TRIM(CAST("x" AS VARCHAR)) AS t1,
         TRIM(CAST("z" AS VARCHAR)) AS t2,
         TRIM(CAST("y" AS VARCHAR)) AS ty
  FROM "records"
), parsed AS (
  SELECT CASE WHEN regexp_matches(t1, '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$') THEN TRY_CAST(t1 AS DOUBLE) END AS p1,
         CASE WHEN regexp_matches(t2, '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$') THEN TRY_CAST(t2 AS DOUBLE) END AS p2,
         CASE WHEN regexp_matches(ty, '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$') THEN TRY_CAST(ty AS DOUBLE) END AS py
  FROM src
), filled AS (
  SELECT CASE WHEN p1 BETWEEN (-1.7976931348623157e+308) AND 1.7976931348623157e+308 THEN p1 ELSE 5e-01 END AS v1,
         CASE WHEN p2 BETWEEN (-1.7976931348623157e+308) AND 1.7976931348623157e+308 THEN p2 ELSE 1e-01 END AS v2,
         CASE WHEN py BETWEEN (-1.7976931348623157e+308) AND 1.7976931348623157e+308 THEN py ELSE 0e+00 END AS vy
  FROM parsed
), mapped AS (
  SELECT CASE WHEN v1 < 0e+00 THEN 0 WHEN v1 > 1e+00 THEN 1 ELSE LEAST(GREATEST((v1 - 0e+00) / (1e+00 - 0e+00), 0), 1) END AS x1,
         CASE WHEN v2 < (-3e+00) THEN 0 WHEN v2 > 3e+00 THEN 1 ELSE LEAST(GREATEST((v2 - (-3e+00)) / (3e+00 - (-3e+00)), 0), 1) END AS x2,
         2 * (CASE WHEN vy < (-1e+01) THEN 0 WHEN vy > 1e+01 THEN 1 ELSE LEAST(GREATEST((vy - (-1e+01)) / (1e+01 - (-1e+01)), 0), 1) END) - 1 AS y
  FROM filled
)
SELECT COUNT(*) AS records,
  SUM(CAST(x1 AS DECIMAL(38,24))) AS sum_x1,
  SUM(CAST(x2 AS DECIMAL(38,24))) AS sum_x2,
  SUM(CAST(x1 * x1 AS DECIMAL(38,24))) AS sum_x1_x1,
  SUM(CAST(x1 * x2 AS DECIMAL(38,24))) AS sum_x1_x2,
  SUM(CAST(x2 * x2 AS DECIMAL(38,24))) AS sum_x2_x2,
  SUM(CAST(x1 * y AS DECIMAL(38,24))) AS sum_x1_y,
  SUM(CAST(x2 * y AS DECIMAL(38,24))) AS sum_x2_y,
  SUM(CAST(y AS DECIMAL(38,24))) AS sum_y
FROM mapped;
