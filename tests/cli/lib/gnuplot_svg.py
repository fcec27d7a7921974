"""Reading gnuplot's SVG output in the CLI tests (standard library only). Parsing the file
as XML makes a broken SVG fail the test."""
import re
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/2000/svg}'


def texts(path):
    """Every <text> of the SVG at path, stripped, in document order."""
    return [(t.text or '').strip() for t in ET.parse(path).getroot().iter(NS + 'text')]


def plot_groups(path):
    """(label, group) for each plotted series: gnuplot draws one <g id="gnuplot_plot_N"> per
    series, its key label the group's first <text> (None for a series without a key)."""
    for g in ET.parse(path).getroot().iter(NS + 'g'):
        if (g.get('id') or '').startswith('gnuplot_plot_'):
            t = [x.text or '' for x in g.iter(NS + 'text')]
            yield (t[0] if t else None), g


def marker_counts(path):
    """{label: points} for the labelled series: points are drawn as <use> markers, one per
    point plus one key sample."""
    return {label: len(list(g.iter(NS + 'use'))) - 1 for label, g in plot_groups(path) if label is not None}


def heatmap_cells(path):
    """[(x, y, accuracy, n)] of a dipmap heatmap's cells: each a label group with the accuracy
    ("0.62") followed by one with "n=N" below it; x, y the accuracy label's position."""
    svg = open(path).read()
    cells = re.findall(r'translate\(([\d.]+),([\d.]+)\)[^>]*>\s*<text>(\d\.\d\d)</text>\s*</g>\s*'
                       r'<g transform="translate\(([\d.]+),([\d.]+)\)[^>]*>\s*<text>n=(\d+)</text>', svg)
    return [(float(c[0]), float(c[1]), c[2], int(c[5])) for c in cells]
