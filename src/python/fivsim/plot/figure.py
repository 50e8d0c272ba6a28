"""fivsim.plot's figures themselves: the Axes a function draws on and the caller's labels, limits
and title over what it drew, and the scripts' shared command line (add_figure_options,
figure_options) and the writing of a figure as PNG, PDF or SVG (save).
"""

import argparse as _argparse
import os as _os

import matplotlib as _mpl
from matplotlib import pyplot as _plt


# --- the Axes ---------------------------------------------------------------------------------
def _axes(ax, figsize):
    if ax is not None:
        return ax
    _, ax = _plt.subplots(figsize=figsize or (6.4, 4.2), layout="constrained")
    return ax


def _finish(ax, title=None, xlabel=None, ylabel=None, xlim=None, ylim=None, default_title=None):
    """the caller's overrides over what the function drew"""
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    if xlim is not None:
        ax.set_xlim(*xlim)
    if ylim is not None:
        ax.set_ylim(*ylim)
    text = default_title if title is None else title
    if text is not None:
        ax.set_title(text, fontsize="medium")
    return ax


def _split_title(options):
    """(title or None, the other options) of a figure's options"""
    rest = dict(options)
    return rest.pop("title", None), rest


# --- the scripts' command line ----------------------------------------------------------------
def _pair(text):
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise _argparse.ArgumentTypeError("%r is not two numbers LO,HI" % text)
    return lo, hi


def _dpi(text):
    value = int(text)
    if value <= 0:
        raise _argparse.ArgumentTypeError("the DPI must be positive, not %s" % text)
    return value


FORMATS = (".png", ".pdf", ".svg")


def add_figure_options(parser, default_out):
    """The options every plot script takes: --out (PNG, PDF or SVG by its suffix), --xlabel,
    --ylabel, --xlim, --ylim, --title (of the main panel), --size and --dpi."""
    g = parser.add_argument_group("figure options")
    g.add_argument("--out", default=None, metavar="FILE",
                   help="The file to write, its format (PNG, PDF or SVG) chosen by its suffix (default: %s)."
                   % default_out)
    g.add_argument("--xlabel", default=None, metavar="TEXT",
                   help="The main panel's x axis label, in place of the name and unit the scenario gives.")
    g.add_argument("--ylabel", default=None, metavar="TEXT",
                   help="The main panel's y axis label, in place of the name and unit the scenario gives.")
    g.add_argument("--xlim", type=_pair, default=None, metavar="LO,HI",
                   help="The main panel's x range (write --xlim=-1,2 where LO is negative).")
    g.add_argument("--ylim", type=_pair, default=None, metavar="LO,HI",
                   help="The main panel's y range (write --ylim=-1,2 where LO is negative).")
    g.add_argument("--title", default=None, metavar="TEXT",
                   help="The main panel's title, in place of the scenario's name (--title '' for none).")
    g.add_argument("--size", type=_pair, default=None, metavar="W,H",
                   help="The figure's width and height in inches (3.5,2.6 fits one journal column).")
    g.add_argument("--dpi", type=_dpi, default=300,
                   help="Dots per inch of a PNG and of the rasterised scatter in a PDF or SVG (default: 300).")
    return g


def figure_options(args):
    """The labels, limits and title of the scripts' parsed options (add_figure_options) that were
    given, as keywords for a plot function."""
    return {k: getattr(args, k) for k in ("xlabel", "ylabel", "xlim", "ylim", "title") if getattr(args, k) is not None}


def save(fig, target, default=None, dpi=300):
    """Writes the figure, its format by the suffix (.png, .pdf, .svg; fonts embedded as TrueType
    in a PDF). target: a path, or the scripts' parsed options (add_figure_options), whose --size,
    --dpi and --out (else `default`) are used. Returns the path written."""
    if isinstance(target, _argparse.Namespace):
        a = target
        if a.size is not None:
            fig.set_size_inches(*a.size)
        path, dpi = a.out or default, a.dpi
    else:
        path = target
    path = _os.fspath(path)
    suffix = _os.path.splitext(path)[1].lower()
    if suffix not in FORMATS:
        raise ValueError("%s: the suffix chooses the format: .png, .pdf or .svg" % path)
    metadata = {".pdf": {"CreationDate": None}, ".svg": {"Date": None}, ".png": {}}[suffix]
    with _mpl.rc_context({"pdf.fonttype": 42, "ps.fonttype": 42}):
        fig.savefig(path, dpi=dpi, metadata=metadata)
    return path
