"""Calibration table of the family-wise p-values (generated; see bandkit/changepoints/significance.py).

Written by ``python benchmarks/changepoints_calibrate.py --reps 2000 [--min-size 1]`` (seeded; 2,000 null series
per family and length up to 1,000 values, 1,000 at 2,000, 500 beyond; families: Gaussian, AR(1) 0.25 and 0.5,
Student-t(3), t3 + AR 0.5, clock ticks of 1 and 2 SDs, 0.5 % and 2 % isolated spikes, 1/f wander of 0.3 SD).
The min_size >= 2 tables (the default) were rewritten on 2026-11-24 by ``--reps 4000`` (4,000 series per family
up to 1,000 values, 2,000 at 2,000, 1,000 beyond) on the current pipeline with log-normal noise added to the
families (right-skewed timing noise: held out it had 2-14 % false alarms at 1,000-10,000 values).
The min_size >= 2 rows for 20 and 30 values were rewritten on 2026-11-24 by ``--reps 4000 --sizes
20,30,50,100`` after the noise model of series up to 30 values left the differences across their strongest
split out of its variogram (bandkit/changepoints/noise.py, "Short series"). The rows for 20, 30 and 40 values
(min_size >= 2) were rewritten again on 2026-11-24 by ``--reps 4000 --sizes 20,30,40,50`` (row 50 not copied)
for the short-series unit of up to 49 values (noise.short_unit: best 0/1/2-change segmentation by BIC, with the
drift guard); rows from 50 on are unchanged. Below 20 values the estimator is the previous one (the unit
starts at 20), so are its thresholds: the rows for 19 values are the previous 20-value rows (the table is
flat below its first row), and nothing under 20 values changes. The min_size >= 2 rows for 20 and 30 values were
rewritten on 2026-11-24 by ``--reps 16000 --sizes 20,30,40`` (rows 40 on unchanged) when the short-series unit
stopped taking its residuals' r1 at 20 values (noise.r1_weight): on 4,000 series per family the 1 % point of the
t3 + AR 0.5 family was low (1.31 % of 8,000 held-out series alarmed). Pools of one cost take part in a row when
they hold >= 7.5 % of a family's series (300 of 4,000, as before; 1,200 of 16,000).
Each row: series length n, then the path statistic beyond which at most 50, 30, 20, 10, 5, 2, 1, 0.5 and 0.2 %
of the null series of every family fall (the supremum over families), for the cost and minimum segment
length of the key. Results: benchmarks/RESULTS_calibration.md, "change points".
"""
QS = (0.5, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002)
TABLE = {}
TABLE[('l2', 2)] = (  # n, thresholds at survival (0.5, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002)
    (19, (3.31, 6.73, 9.31, 14.44, 19.07, 25.67, 30.90, 35.17, 52.07)),  # main's 20-value row (docstring)
    (20, (4.59, 9.87, 13.15, 18.25, 23.22, 29.95, 35.04, 40.60, 49.91)),
    (30, (3.56, 7.46, 11.03, 16.40, 21.33, 27.70, 32.70, 37.86, 46.67)),
    (40, (3.36, 6.34, 8.69, 12.89, 17.96, 24.82, 30.48, 35.17, 46.44)),
    (50, (3.47, 6.08, 7.69, 10.85, 15.20, 20.63, 25.71, 31.66, 38.64)),
    (100, (5.83, 8.16, 9.66, 12.30, 15.79, 20.15, 23.90, 28.01, 33.47)),
    (200, (8.20, 10.24, 11.63, 13.76, 16.37, 19.68, 22.10, 24.36, 27.78)),
    (500, (8.99, 10.92, 12.15, 14.06, 16.10, 18.73, 20.59, 22.49, 24.99)),
    (1000, (10.44, 12.25, 13.38, 15.21, 17.05, 19.29, 21.07, 23.14, 24.97)),
    (2000, (12.53, 14.34, 15.34, 17.02, 18.79, 21.43, 23.23, 25.65, 27.37)),
    (5000, (14.62, 16.43, 17.57, 19.41, 20.99, 23.56, 25.40, 28.16, 29.77)),
    (10000, (16.64, 18.39, 19.81, 21.80, 23.19, 25.12, 27.09, 27.91, 28.89)),
)

TABLE[('robust', 2)] = (  # n, thresholds at survival (0.5, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002)
    (19, (2.51, 7.57, 11.04, 17.72, 23.07, 33.04, 38.92, 46.39, 53.83)),  # main's 20-value row (docstring)
    (20, (4.40, 10.95, 15.06, 22.57, 30.44, 47.70, 56.32, 72.97, 89.96)),
    (30, (2.67, 8.71, 13.16, 20.20, 26.40, 36.70, 44.65, 54.92, 84.14)),
    (40, (1.48, 6.76, 10.34, 15.64, 21.22, 29.50, 37.04, 47.77, 63.78)),
    (50, (1.19, 5.05, 6.98, 10.97, 15.34, 23.32, 31.56, 44.91, 78.76)),
    (100, (2.89, 5.95, 7.54, 10.33, 13.24, 18.39, 23.79, 32.38, 51.81)),
    (200, (5.25, 7.80, 9.16, 11.42, 13.64, 17.30, 20.81, 25.68, 36.80)),
    (500, (7.60, 9.87, 11.16, 13.27, 15.24, 18.42, 21.15, 24.32, 31.80)),
    (1000, (10.01, 12.04, 13.29, 15.22, 17.11, 20.05, 22.17, 24.80, 29.58)),
    (2000, (12.81, 14.65, 15.89, 17.86, 19.89, 22.98, 24.90, 27.77, 33.14)),
    (5000, (15.61, 17.27, 18.58, 20.67, 22.87, 26.02, 28.96, 32.09, 37.30)),
    (10000, (17.97, 19.89, 21.27, 23.48, 25.84, 29.06, 33.02, 36.41, 41.46)),
)
TABLE[('l2', 1)] = (  # n, thresholds at survival (0.5, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002)
    (20, (0.00, 4.54, 6.80, 11.05, 15.18, 20.50, 24.27, 29.61, 39.26)),
    (30, (3.01, 5.47, 7.13, 10.25, 14.76, 21.96, 25.62, 31.50, 43.08)),
    (50, (5.01, 7.12, 8.51, 10.97, 14.25, 21.77, 26.97, 33.39, 41.21)),
    (100, (7.01, 8.77, 9.90, 11.69, 13.54, 17.62, 21.70, 25.86, 30.96)),
    (200, (7.56, 9.29, 10.31, 11.87, 13.46, 16.21, 19.07, 21.73, 24.86)),
    (500, (8.83, 10.48, 11.49, 13.12, 14.59, 17.08, 19.04, 20.98, 23.20)),
    (1000, (10.42, 12.05, 13.10, 14.69, 16.08, 18.42, 20.01, 21.18, 24.14)),
    (2000, (12.36, 14.26, 15.31, 16.99, 18.99, 21.55, 23.11, 24.73, 28.21)),
    (5000, (14.53, 16.47, 17.52, 19.46, 21.91, 24.68, 26.20, 28.28, 33.32)),
    (10000, (16.71, 18.55, 19.73, 21.92, 23.87, 26.93, 28.74, 29.68, 38.44)),
)

TABLE[('robust', 1)] = (  # n, thresholds at survival (0.5, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002)
    (20, (0.00, 5.27, 9.27, 16.41, 25.46, 37.74, 40.27, 52.38, 89.24)),
    (30, (0.00, 5.69, 8.15, 13.76, 20.23, 31.37, 43.68, 49.33, 70.14)),
    (50, (1.13, 5.27, 7.03, 11.18, 15.88, 25.00, 32.55, 38.17, 51.04)),
    (100, (2.80, 5.85, 7.24, 10.10, 13.03, 19.84, 24.62, 29.62, 38.45)),
    (200, (4.77, 7.34, 8.63, 10.72, 12.87, 17.21, 20.31, 23.46, 29.06)),
    (500, (6.84, 9.06, 10.21, 11.97, 13.76, 16.72, 19.12, 21.44, 25.19)),
    (1000, (9.08, 10.94, 12.03, 13.77, 15.48, 17.96, 19.60, 22.03, 24.55)),
    (2000, (11.38, 13.20, 14.31, 16.29, 17.87, 20.05, 21.94, 23.48, 25.76)),
    (5000, (13.67, 15.46, 16.59, 18.81, 20.25, 22.31, 24.28, 24.97, 28.22)),
    (10000, (15.68, 17.10, 18.32, 19.89, 21.85, 24.57, 26.24, 26.45, 30.67)),
)
