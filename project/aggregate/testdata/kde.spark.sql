-- Bernstein Release aggregate query (issue 20): kde, 2 feature columns, B = 4096 bins per axis, dialect spark.
-- Written from public inputs only (bounds, fill values, classes, bins); run it where the data live
-- and give its result table to bernstein. docs/aggregates.md explains every step.
WITH src AS (
  SELECT TRIM(CAST(`age` AS STRING)) AS t1,
         TRIM(CAST(`income` AS STRING)) AS t2
  FROM `records`
), parsed AS (
  SELECT CASE WHEN t1 RLIKE '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$' THEN TRY_CAST(t1 AS DOUBLE) END AS p1,
         CASE WHEN t2 RLIKE '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$' THEN TRY_CAST(t2 AS DOUBLE) END AS p2
  FROM src
), filled AS (
  SELECT CASE WHEN p1 BETWEEN (-1.7976931348623157e+308) AND 1.7976931348623157e+308 THEN p1 ELSE 5e+01 END AS v1,
         CASE WHEN p2 BETWEEN (-1.7976931348623157e+308) AND 1.7976931348623157e+308 THEN p2 ELSE 0e+00 END AS v2
  FROM parsed
), mapped AS (
  SELECT CASE WHEN v1 < 0e+00 THEN 0 WHEN v1 > 1e+02 THEN 1 ELSE LEAST(GREATEST((v1 - 0e+00) / (1e+02 - 0e+00), 0), 1) END AS x1,
         CASE WHEN v2 < (-1e+03) THEN 0 WHEN v2 > 2.5e+05 THEN 1 ELSE LEAST(GREATEST((v2 - (-1e+03)) / (2.5e+05 - (-1e+03)), 0), 1) END AS x2
  FROM filled
), binned AS (
  SELECT LEAST(CAST(FLOOR(x1 * 4096) AS BIGINT), 4095) AS b1,
         LEAST(CAST(FLOOR(x2 * 4096) AS BIGINT), 4095) AS b2
  FROM mapped
)
SELECT b1 AS bin_1, b2 AS bin_2, COUNT(*) AS records
FROM binned
GROUP BY b1, b2
ORDER BY b1, b2;
