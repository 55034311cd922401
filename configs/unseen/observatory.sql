-- A small weather-station database: stations, daily readings (60 rows, past the server's row cap of 25), alerts.
CREATE TABLE stations (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    city TEXT NOT NULL,
    elevation_m INTEGER NOT NULL CHECK (elevation_m >= 0)
);
INSERT INTO stations VALUES (1, 'Harbour', 'Bergen', 12), (2, 'Ridge', 'Innsbruck', 1905), (3, 'Airport', 'Seville', 34);

CREATE TABLE readings (
    id INTEGER PRIMARY KEY,
    station_id INTEGER NOT NULL REFERENCES stations (id),
    day TEXT NOT NULL,
    temp_c REAL NOT NULL,
    rain_mm REAL NOT NULL DEFAULT 0
);
CREATE INDEX readings_by_station_day ON readings (station_id, day);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19)
INSERT INTO readings (station_id, day, temp_c, rain_mm)
SELECT s.id, date('2024-03-01', '+' || n.i || ' days'),
       round(CASE s.id WHEN 1 THEN 6.0 WHEN 2 THEN -3.5 ELSE 17.0 END + (n.i % 7) * 0.8, 1),
       CASE WHEN (n.i + s.id) % 4 = 0 THEN round(2.5 + n.i * 0.3, 1) ELSE 0 END
FROM n CROSS JOIN stations s ORDER BY s.id, n.i;

CREATE TABLE alerts (
    id INTEGER PRIMARY KEY,
    station_id INTEGER NOT NULL REFERENCES stations (id),
    raised_on TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('frost', 'storm', 'heat')),
    note TEXT
);
INSERT INTO alerts VALUES (1, 2, '2024-03-02', 'frost', 'Road to the ridge icy'),
    (2, 1, '2024-03-09', 'storm', NULL), (3, 2, '2024-03-15', 'frost', 'Pipes lagged');

CREATE VIEW station_summary AS
SELECT s.name, count(r.id) AS days, round(avg(r.temp_c), 2) AS mean_temp_c, round(sum(r.rain_mm), 1) AS rain_mm
FROM stations s JOIN readings r ON r.station_id = s.id GROUP BY s.name;
