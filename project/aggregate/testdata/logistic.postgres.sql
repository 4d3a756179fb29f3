-- Bernstein Release Newton pass (issue 20): logistic, 2 feature columns, dialect postgres.
-- Written from public inputs only (bounds, fill values, classes) and the current weights, the margin's
-- coefficients; bernstein runs one such pass per Newton step. docs/aggregates.md explains every step.
WITH src AS (
  SELECT TRIM(CAST("age" AS text)) AS t1,
         TRIM(CAST("income" AS text)) AS t2,
         TRIM(CAST("outcome" AS text)) AS ty
  FROM "records"
), parsed AS (
  SELECT CASE WHEN t1 ~ '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$' THEN CAST(t1 AS double precision) END AS p1,
         CASE WHEN t2 ~ '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$' THEN CAST(t2 AS double precision) END AS p2,
         CASE WHEN ty = 'no' THEN -1 WHEN ty = '1' THEN 1 WHEN CASE WHEN ty ~ '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$' THEN CAST(ty AS double precision) END = 1e+00 THEN 1 ELSE -1 END AS py
  FROM src
), filled AS (
  SELECT CASE WHEN p1 BETWEEN (-1.7976931348623157e+308) AND 1.7976931348623157e+308 THEN p1 ELSE 5e+01 END AS v1,
         CASE WHEN p2 BETWEEN (-1.7976931348623157e+308) AND 1.7976931348623157e+308 THEN p2 ELSE 0e+00 END AS v2,
         py AS y
  FROM parsed
), mapped AS (
  SELECT CASE WHEN v1 < 0e+00 THEN 0 WHEN v1 > 1e+02 THEN 1 ELSE LEAST(GREATEST((v1 - 0e+00) / (1e+02 - 0e+00), 0), 1) END AS x1,
         CASE WHEN v2 < (-1e+03) THEN 0 WHEN v2 > 2.5e+05 THEN 1 ELSE LEAST(GREATEST((v2 - (-1e+03)) / (2.5e+05 - (-1e+03)), 0), 1) END AS x2,
         y
  FROM filled
), margin AS (
  SELECT x1, x2, y, y * ((-2.5e-01) + 1.5e-07 * x1 + 1.275e+01 * x2) AS m
  FROM mapped
), expm AS (
  SELECT x1, x2, y, m, EXP(GREATEST(-ABS(m), -700)) AS e
  FROM margin
), terms AS (
  SELECT x1, x2, -y * CASE WHEN m >= 0 THEN e / (1 + e) ELSE 1 / (1 + e) END AS g,
         e / ((1 + e) * (1 + e)) AS h
  FROM expm
)
SELECT COUNT(*) AS records,
  SUM(CAST(g AS numeric)) AS sum_g,
  SUM(CAST(g * x1 AS numeric)) AS sum_g_x1,
  SUM(CAST(g * x2 AS numeric)) AS sum_g_x2,
  SUM(h) AS sum_h,
  SUM(h * x1) AS sum_h_x1,
  SUM(h * x2) AS sum_h_x2,
  SUM(h * x1 * x1) AS sum_h_x1_x1,
  SUM(h * x1 * x2) AS sum_h_x1_x2,
  SUM(h * x2 * x2) AS sum_h_x2_x2
FROM terms;
