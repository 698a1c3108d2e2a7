#!/usr/bin/env python3
"""bench/release/report.py: the figures of make bench-release (bench/release/run.sh) from the files
it collected: the pods' dagsched.io/released-at times, the sampled release counter, the
controller's and the API server's metrics, and the baseline's curl timings."""
import argparse
import datetime
import math
import re
import sys

TARGET = 100.0  # releases a second, sustained (issue 33)

LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_metrics(path):
    """[(name, {labels}, value)] of a Prometheus text file."""
    out = []
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            if line.startswith('#'):
                continue
            m = LINE.match(line)
            if not m:
                continue
            try:
                v = float(m.group(4))
            except ValueError:
                continue
            out.append((m.group(1), dict(LABEL.findall(m.group(3) or '')), v))
    return out


def histogram(samples, name, want=None):
    """(buckets [(le, cumulative)], sum, count) of a histogram, summed over the series whose
    labels include `want`."""
    want = want or {}
    buckets, total, count = {}, 0.0, 0.0
    for n, labels, v in samples:
        if any(labels.get(k) != val for k, val in want.items()):
            continue
        if n == name + '_bucket':
            le = math.inf if labels['le'] == '+Inf' else float(labels['le'])
            buckets[le] = buckets.get(le, 0.0) + v
        elif n == name + '_sum':
            total += v
        elif n == name + '_count':
            count += v
    return sorted(buckets.items()), total, count


def minus(a, b):
    """Histogram a - b (b may be empty: nothing before)."""
    bb = dict(b[0])
    return ([(le, c - bb.get(le, 0.0)) for le, c in a[0]], a[1] - b[1], a[2] - b[2])


def quantile_bound(h, q):
    buckets, _, count = h
    for le, c in buckets:
        if count > 0 and c >= q * count:
            return le
    return math.nan


def ms(v):
    if math.isinf(v):
        return '+Inf'
    if math.isnan(v):
        return '-'
    return f'{v * 1000:.0f}' if v >= 0.01 else f'{v * 1000:.1f}'


def hist_text(h):
    _, total, count = h
    if count <= 0:
        return '- (none)'
    return (f'{ms(total / count)} / {ms(quantile_bound(h, 0.5))} / {ms(quantile_bound(h, 0.9))} / '
            f'{ms(quantile_bound(h, 0.99))} ms ({count:.0f})')


def exact_text(lat):
    if not lat:
        return '- (none)'
    lat = sorted(lat)

    def q(p):
        return lat[min(len(lat) - 1, int(math.ceil(p * len(lat))) - 1)]

    mean = sum(lat) / len(lat)
    return f'{ms(mean)} / {ms(q(0.5))} / {ms(q(0.9))} / {ms(q(0.99))} ms ({len(lat)})'


def parse_time(s):
    s = s.strip()
    if not s:
        return None
    if s.endswith('Z'):
        s = s[:-1] + '+00:00'
    try:
        return datetime.datetime.fromisoformat(s).timestamp()
    except ValueError:
        return None


def curl_results(path):
    ok, lat = 0, []
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            p = line.split()
            if len(p) != 2:
                continue
            if p[0].startswith('2'):
                ok += 1
            try:
                lat.append(float(p[1]))
            except ValueError:
                pass
    return ok, lat


def read_floats(path):
    try:
        with open(path, encoding='utf-8') as f:
            return float(f.read().strip() or 'nan')
    except (OSError, ValueError):
        return math.nan


def read_text(path):
    try:
        with open(path, encoding='utf-8') as f:
            return f.read().strip()
    except OSError:
        return ''


def run_figures(d, pods):
    """{figure: text} of one run's directory, and its sustained rate."""
    fig = {}
    start = read_floats(d + '/start')
    times = []
    with open(d + '/released-at', encoding='utf-8') as f:
        for line in f:
            p = line.split()
            t = parse_time(p[1]) if len(p) == 2 else None
            if t is not None:
                times.append(t)
    times.sort()
    n = len(times)
    sustained = math.nan
    fig['flags'] = read_text(d + '/flags') or '(its defaults)'
    fig['released'] = f'{n} of {pods}'
    if n >= 10:
        lo, hi = int(0.1 * n), int(0.9 * n) - 1
        span = times[hi] - times[lo]
        sustained = (hi - lo) / span if span > 0 else math.inf
        whole = times[-1] - times[0]
        fig['sustained'] = f'{sustained:.1f} /s over {span:.1f} s'
        fig['overall'] = f'{(n - 1) / whole if whole > 0 else math.inf:.1f} /s over {whole:.1f} s'
        fig['first'] = f'{times[0] - start:.1f} s'
    samples = []
    with open(d + '/samples', encoding='utf-8') as f:
        for line in f:
            p = line.split()
            if len(p) == 2:
                try:
                    samples.append((float(p[0]), float(p[1])))
                except ValueError:
                    pass
    rates = []
    for i in range(len(samples)):
        for j in range(i + 1, len(samples)):
            if samples[j][0] - samples[i][0] >= 1.0:
                dn = samples[j][1] - samples[i][1]
                if samples[i][1] > 0 and samples[j][1] < pods and dn > 0:
                    rates.append(dn / (samples[j][0] - samples[i][0]))
                break
    if rates:
        rates.sort()
        fig['1s'] = f'{rates[len(rates) // 2]:.1f} / {rates[-1]:.1f} /s'
    m = parse_metrics(d + '/metrics')
    fig['rounds'] = hist_text(histogram(m, 'dagsched_controller_decision_duration_seconds'))
    fig['cpu'] = hist_text(histogram(m, 'dagsched_controller_decision_cpu_seconds'))
    fig['patch'] = hist_text(histogram(m, 'dagsched_controller_release_request_seconds',
                                       {'request': 'patch'}))
    fig['event'] = hist_text(histogram(m, 'dagsched_controller_release_request_seconds',
                                       {'request': 'event'}))
    before = parse_metrics(d + '/apiserver-0')
    after = parse_metrics(d + '/apiserver-1')
    fig['server'] = hist_text(minus(histogram(after, 'apiserver_request_duration_seconds'),
                                    histogram(before, 'apiserver_request_duration_seconds')))
    verbs = {lab.get('verb'): v for name, lab, v in m
             if name == 'dagsched_controller_api_requests_total'}
    fig['verbs'] = (f'{verbs.get("PATCH", 0):.0f} / {verbs.get("POST", 0):.0f} / '
                    f'{verbs.get("GET", 0):.0f}')
    throttled = [v for name, _, v in m if name == 'dagsched_controller_api_throttled_total']
    if throttled:
        fig['throttled'] = f'{throttled[0]:.0f}'
    fig['running'] = f'{read_floats(d + "/running-s"):.1f} s'
    return fig, sustained


ROWS = [
    ('flags', 'controller flags', ''),
    ('released', 'pods released (released-at)', ''),
    ('sustained', 'sustained release rate (middle 80 %)', f'>= {TARGET:.0f} /s'),
    ('overall', 'first to last release', ''),
    ('1s', 'releases_total each second: median / best', ''),
    ('first', 'first release after the start', ''),
    ('rounds', 'round duration: mean / p50 / p90 / p99', ''),
    ('cpu', 'round CPU time: same', ''),
    ('patch', 'release PATCH (controller): same', ''),
    ('event', 'Released Event POST (controller): same', ''),
    ('server', 'PATCH on pods at the API server: same', ''),
    ('verbs', 'controller requests: PATCH / POST / GET', ''),
    ('throttled', 'requests that waited for --kube-api-qps', ''),
    ('running', 'then every pod running after', ''),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--run', action='append', default=[], help='NAME=DIR')
    for a in ('--baseline-parallel', '--baseline-serial'):
        ap.add_argument(a, default='')
    for a in ('--pods', '--nodes', '--window'):
        ap.add_argument(a, type=int, required=True)
    for a in ('--baseline-parallel-s', '--baseline-serial-s'):
        ap.add_argument(a, type=float, default=0.0)
    o = ap.parse_args()

    runs = []
    for r in o.run:
        name, _, d = r.partition('=')
        fig, sustained = run_figures(d, o.pods)
        runs.append((name, fig, sustained))
    w1 = max(len(r[1]) for r in ROWS) + 2
    widths = [max(len(name), *(len(fig.get(k, '-')) for k, _, _ in ROWS)) + 2
              for name, fig, _ in runs]
    print()
    print(f'controller releases at {o.nodes} nodes, {o.pods} gated ready tasks a run, room for '
          'all:')
    head = f'  {"figure":<{w1}}' + ''.join(f'{name:<{w}}' for (name, _, _), w in zip(runs, widths))
    print(head + 'target (issue 33)')
    for key, label, target in ROWS:
        line = f'  {label:<{w1}}' + ''.join(f'{fig.get(key, "-"):<{w}}'
                                             for (_, fig, _), w in zip(runs, widths))
        print(line + target)

    print()
    print('baseline: the API server alone, the same strategic merge patch by curl, no controller:')
    ok_p, lat_p = curl_results(o.baseline_parallel) if o.baseline_parallel else (0, [])
    base = ok_p / o.baseline_parallel_s if o.baseline_parallel_s > 0 else math.nan
    print(f'  {ok_p} PATCHes, {o.window} at once: {base:.1f} /s in {o.baseline_parallel_s:.1f} s;'
          f' latency mean / p50 / p90 / p99 {exact_text(lat_p)}')
    ok_s, lat_s = curl_results(o.baseline_serial) if o.baseline_serial else (0, [])
    if ok_s:
        ser = ok_s / o.baseline_serial_s if o.baseline_serial_s > 0 else math.nan
        print(f'  {ok_s} PATCHes, one at a time: {ser:.1f} /s in {o.baseline_serial_s:.1f} s;'
              f' latency {exact_text(lat_s)}')
    if base > 0:
        print('  sustained release rate / parallel baseline: ' + ', '.join(
            f'{name} {s / base:.2f}' for name, _, s in runs if not math.isnan(s)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
