"""Mean temperature and total rain per station of readings.csv (beside this script)."""
import csv
import os

here = os.path.dirname(__file__)
with open(os.path.join(here, "readings.csv"), newline="") as handle:
    readings = list(csv.DictReader(handle))

stations = {}
for row in readings:
    entry = stations.setdefault(row["station"], {"temps": [], "rain_mm": 0.0})
    entry["temps"].append(float(row["temp_c"]))
    entry["rain_mm"] += float(row["rain_mm"])

summary = {
    name: {"mean_temp_c": round(sum(e["temps"]) / len(e["temps"]), 2), "rain_mm": round(e["rain_mm"], 1)}
    for name, e in sorted(stations.items())
}
print(summary)
