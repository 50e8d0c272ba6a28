"""The fivsim package for the plot scripts (and scripts/compare/): <build>/python put on sys.path,
the build being $FIVSIM_BUILD_DIR, else the repository's build/; a folder on PYTHONPATH that holds
fivsim is taken as it is. Exits with what to run where no package is built.

    from find_fivsim import fivsim_plot, parser
    plot = fivsim_plot()          # fivsim.plot, drawing with matplotlib's Agg backend
    ap = parser(__doc__, epilog)  # the docstring's first paragraph as --help's description
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _tool():
    return os.path.basename(sys.argv[0]).rsplit(".", 1)[0] or "fivsim"


def package_dir():
    """The folder that holds the fivsim package the scripts use."""
    build = os.environ.get("FIVSIM_BUILD_DIR")
    if build:
        return os.path.join(os.path.abspath(build), "python")
    for path in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if path and os.path.isfile(os.path.join(path, "fivsim", "__init__.py")):
            return path
    return os.path.join(ROOT, "build", "python")


def require():
    """Makes `import fivsim` work, or exits saying how to build the package."""
    if "fivsim" in sys.modules:
        return
    path = package_dir()
    if not os.path.isfile(os.path.join(path, "fivsim", "__init__.py")):
        sys.exit("%s: no fivsim package in %s: build it (scripts/run.sh --version builds build/python; "
                 "FIVSIM_BUILD_DIR names another build folder)" % (_tool(), path))
    sys.path.insert(0, path)


def fivsim_plot():
    """The module fivsim.plot, on matplotlib's Agg backend (no display needed)."""
    require()
    import matplotlib

    matplotlib.use("Agg")
    try:
        from fivsim import plot
    except ImportError as e:
        sys.exit("%s: the fivsim package in %s does not load (%s): rebuild it (scripts/run.sh --version)"
                 % (_tool(), package_dir(), e))
    return plot


def parser(doc, epilog=None):
    """A script's argument parser: the first paragraph of its docstring as the description (whole
    sentences, not its first line), -h in a sentence too."""
    ap = argparse.ArgumentParser(description=" ".join(doc.strip().split("\n\n")[0].split()), epilog=epilog,
                                 add_help=False)
    ap.add_argument("-h", "--help", action="help", help="Shows this help and exits.")
    return ap
