# geo.py - geospatial kernels for a ride-hailing analytics notebook: the great-circle (haversine)
# distance matrix between pickups and drivers (2-D grid), binning GPS fixes into a lat/lon grid
# of counts with atomics, and a point-in-polygon test (ray casting, even-odd rule) of each fix
# against a city boundary kept in constant memory.
# Numba accepts: haversine_matrix, bin_points, points_in_polygon.
# Known real bugs:
#   line 28: `EARTH_RADIUS_KM * c`: EARTH_RADIUS_KM is a Python float (float64), so the last
#            product and the store's conversion run in double precision in a float32 kernel.
import math

import numpy as np
from numba import cuda, float32

EARTH_RADIUS_KM = 6371.0
DEG = float32(math.pi / 180.0)
CITY = np.array([[-73.97, 40.70], [-73.93, 40.72], [-73.91, 40.80],
                 [-73.95, 40.83], [-74.01, 40.76], [-74.02, 40.71]], dtype=np.float32)


@cuda.jit(device=True, inline=True)
def haversine(lat1, lon1, lat2, lon2):
    dlat = (lat2 - lat1) * DEG
    dlon = (lon2 - lon1) * DEG
    sdlat = math.sin(dlat * float32(0.5))
    sdlon = math.sin(dlon * float32(0.5))
    a = sdlat * sdlat + math.cos(lat1 * DEG) * math.cos(lat2 * DEG) * sdlon * sdlon
    c = float32(2.0) * math.asin(math.sqrt(min(a, float32(1.0))))
    return EARTH_RADIUS_KM * c


@cuda.jit
def haversine_matrix(lat_a, lon_a, lat_b, lon_b, dist):
    j, i = cuda.grid(2)
    if i < lat_a.shape[0] and j < lat_b.shape[0]:
        dist[i, j] = haversine(lat_a[i], lon_a[i], lat_b[j], lon_b[j])


@cuda.jit
def bin_points(lat, lon, lat0, lon0, cell_deg, counts):
    i = cuda.grid(1)
    if i >= lat.size:
        return
    r = int((lat[i] - lat0) / cell_deg)
    c = int((lon[i] - lon0) / cell_deg)
    if 0 <= r < counts.shape[0] and 0 <= c < counts.shape[1]:
        cuda.atomic.add(counts, (r, c), 1)


@cuda.jit
def points_in_polygon(lon, lat, inside):
    poly = cuda.const.array_like(CITY)
    i = cuda.grid(1)
    if i < lon.size:
        x = lon[i]
        y = lat[i]
        odd = False
        n = poly.shape[0]
        j = n - 1
        for k in range(n):
            xi, yi = poly[k, 0], poly[k, 1]
            xj, yj = poly[j, 0], poly[j, 1]
            if (yi > y) != (yj > y):
                x_cross = (xj - xi) * (y - yi) / (yj - yi) + xi
                if x < x_cross:
                    odd = not odd
            j = k
        inside[i] = 1 if odd else 0


def distance_matrix(pickups, drivers):
    d_lat_a = cuda.to_device(np.ascontiguousarray(pickups[:, 0]))
    d_lon_a = cuda.to_device(np.ascontiguousarray(pickups[:, 1]))
    d_lat_b = cuda.to_device(np.ascontiguousarray(drivers[:, 0]))
    d_lon_b = cuda.to_device(np.ascontiguousarray(drivers[:, 1]))
    dist = cuda.device_array((pickups.shape[0], drivers.shape[0]), dtype=np.float32)
    threads = (32, 8)
    blocks = ((drivers.shape[0] + 31) // 32, (pickups.shape[0] + 7) // 8)
    haversine_matrix[blocks, threads](d_lat_a, d_lon_a, d_lat_b, d_lon_b, dist)
    return dist.copy_to_host()


def heatmap(lat, lon, cell_deg=0.01):
    counts = cuda.to_device(np.zeros((64, 64), dtype=np.int32))
    bin_points[(lat.size + 255) // 256, 256](cuda.to_device(lat), cuda.to_device(lon),
                                             40.5, -74.3, cell_deg, counts)
    inside = cuda.device_array(lat.size, dtype=np.uint8)
    points_in_polygon[(lat.size + 255) // 256, 256](cuda.to_device(lon), cuda.to_device(lat), inside)
    return counts.copy_to_host(), inside.copy_to_host()


if __name__ == "__main__":
    rng = np.random.default_rng(1)
    fixes = np.stack([rng.uniform(40.6, 40.9, 4000), rng.uniform(-74.1, -73.8, 4000)], axis=1)
    fixes = fixes.astype(np.float32)
    print(distance_matrix(fixes[:500], fixes[500:700]).mean())
    counts, inside = heatmap(np.ascontiguousarray(fixes[:, 0]), np.ascontiguousarray(fixes[:, 1]))
    print(counts.sum(), inside.sum())
