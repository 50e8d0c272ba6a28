"""fivsim.plot's names and units: the axis label of a JSON pointer or a table's column, read from
the scenario's model type and friction law (label("/model/Fn", scenario) == "Fn [N]"), and the
colours and markers of the classes and attractors, the same in every figure.
"""

# --- names and units --------------------------------------------------------------------------
# a model key's unit; {L} is the coordinate's unit (m, rad for the torsion pendulum)
_TRANSLATIONAL = {"m": "kg", "k": "N/m", "c": "N s/m", "v0": "m/s", "Fn": "N", "k1": "N/m", "k3": "N/m",
                  "kc": "N/m", "c1": "N s/m", "c2": "N s/m", "Fp": "N", "A": "m", "f_hz": "Hz", "Ff": "N",
                  "mu": "–", "n": None}
_MULTIBODY = {"M": "kg", "K": "N/m", "C": "N s/m", "f": "N", "f_sin": "N", "f_cos": "N", "omega": "rad/s",
              "contacts/Fn": "N", "contacts/k_c": "N/m", "contacts/v_surface": "m/s", "contacts/gap0": "m",
              "contacts/w_T": "–", "contacts/w_N": "–"}
_MODEL_UNITS = {
    "slider_belt": _TRANSLATIONAL,
    "slider_chain": _TRANSLATIONAL,
    "mode_coupling_2dof": _TRANSLATIONAL,
    "base_excited_sdof": _TRANSLATIONAL,
    # the law's coefficients are torques for Fn = 1, so Fn is a pure number here
    "torsion_pendulum": {"J2": "kg m²", "c2": "N m s/rad", "k2": "N m/rad", "input/amplitude": "rad/s",
                         "input/f_hz": "Hz", "Fn": "–"},
    "linear_multibody": _MULTIBODY,
}
_MODEL_NAMES = {"f_hz": "f", "input/amplitude": "A", "input/f_hz": "f", "omega": "ω", "Fp": "Fp",
                "contacts/v_surface": "v_surface", "contacts/k_c": "k_c", "contacts/gap0": "gap0"}
# a friction key's unit; {F} the unit of a coefficient that multiplies the normal force ("" for a
# pure number, N m for the torsion pendulum's torques), {L} as above
_FRICTION_UNITS = {"mu": "{F}", "mu_s": "{F}", "mu_d": "{F}", "mu_c": "{F}", "mu_k": "{F}", "Ts_l": "{F}",
                   "Ts_r": "{F}", "Fc": "{F}", "Fs": "{F}", "mu_v": "{F} s/{L}", "delta": "s/{L}",
                   "eps": "s/{L}", "T0_l": "s/{L}", "T0_r": "s/{L}", "v_s": "{L}/s", "vs": "{L}/s",
                   "sigma0": "{F}/{L}", "sigma1": "{F} s/{L}", "sigma2": "{F} s/{L}", "beta": "–",
                   "alpha": "s/{L}", "elements/K": "{F}/{L}", "elements/B": "{F} s/{L}",
                   "elements/C": "{L}/s", "elements/alpha": "–"}
# where a key means something else under another law: stribeck's alpha is an exponent
_FRICTION_LAW_UNITS = {("stribeck", "alpha"): "–"}
_GREEK = {"mu": "μ", "mu_s": "μs", "mu_d": "μd", "mu_c": "μc", "mu_k": "μk", "mu_v": "μv", "delta": "δ",
          "eps": "ε", "alpha": "α", "beta": "β", "sigma0": "σ0", "sigma1": "σ1", "sigma2": "σ2",
          "Ts_l": "Ts,l", "Ts_r": "Ts,r", "T0_l": "T0,l", "T0_r": "T0,r", "v_s": "vs",
          "elements/K": "K", "elements/B": "B", "elements/C": "C", "elements/alpha": "α"}
_RUN_KEYS = {("integrator", "dt"): ("Δt", "s"), ("integrator", "t_end"): ("t_end", "s"),
             ("analysis", "t_transient"): ("t_transient", "s")}
# the columns of the tables that are not a pointer, a coordinate or a force
_COLUMNS = {"t": ("t", "s"), "period": ("period", "s"), "orbit_period": ("period", "s"),
            "lyapunov": ("λmax", "1/s"), "fraction": ("basin stability", "–"), "max_real": ("max Re λ", "1/s"),
            "max_modulus": ("max |multiplier|", "–"), "recurrence": ("recurrence", "–"),
            "frac_stick": ("stick fraction", "–"), "frac_free": ("free fraction", "–"),
            "frac_slip_neg": ("slip− fraction", "–"), "frac_slip_pos": ("slip+ fraction", "–"),
            "arclength": ("arclength", None), "settled_at": ("settled at", "s")}
_PREFIXES = (("settled_min_", "settled min "), ("settled_max_", "settled max "), ("rms_", "RMS "),
             ("min_", "min "), ("max_", "max "))


class _Units:
    """what the units of a scenario's quantities depend on: its model type and friction law"""

    def __init__(self, scenario):
        scenario = scenario if isinstance(scenario, dict) else {}
        model = scenario.get("model", {}) if isinstance(scenario.get("model"), dict) else {}
        self.type = model.get("type")
        self.law = (scenario.get("friction") or {}).get("law") if isinstance(scenario.get("friction"), dict) else None
        rotational = self.type == "torsion_pendulum"
        self.L = "rad" if rotational else "m"
        self.F = "N m" if rotational else ""
        self.model = dict(_MODEL_UNITS.get(self.type, {**_TRANSLATIONAL, **_MULTIBODY}))
        self.force_normal = "–" if rotational else "N"
        self.force_tangential = "N m" if rotational else "N"

    def friction(self, key, law=None):
        unit = _FRICTION_LAW_UNITS.get((law or self.law, key), _FRICTION_UNITS.get(key))
        if unit is None:
            return None
        text = unit.replace("{F}", self.F).replace("{L}", self.L).strip()
        if text.startswith("/"):
            text = "1" + text
        return text or "–"


def _split(pointer):
    """a JSON pointer's segments (~1 and ~0 unescaped)"""
    return [s.replace("~1", "/").replace("~0", "~") for s in pointer.strip("/").split("/")]


def _indexed(name, indices):
    """a name with its array indices: Fn1 for /model/Fn/1, K[0,1] for /model/K/0/1"""
    if not indices:
        return name
    if len(indices) == 1:
        return name + indices[0]
    return "%s[%s]" % (name, ",".join(indices))


def _name_unit(path, scenario=None):
    """(name, unit or None) of a JSON pointer or a table's column"""
    u = _Units(scenario)
    if not path.startswith("/"):
        return _column(path, u)
    seg = _split(path)
    words = [s for s in seg if not s.isdigit()]
    indices = [s for s in seg if s.isdigit()]
    top = seg[0]
    if top == "initial" and len(seg) == 3 and seg[1] in ("q", "u") and seg[2].isdigit():
        return seg[1] + seg[2], u.L if seg[1] == "q" else u.L + "/s"
    if (seg[0], seg[-1]) in _RUN_KEYS and len(seg) == 2:
        return _RUN_KEYS[(seg[0], seg[-1])]
    if "friction" in words:
        # /friction/mu_s, /model/contacts/0/friction/mu_s, /friction/elements/1/K
        rest = words[words.index("friction") + 1:]
        key = "/".join(rest)
        law = None
        if top == "model" and "contacts" in words and isinstance(scenario, dict):
            try:
                law = scenario["model"]["contacts"][int(indices[0])]["friction"]["law"]
            except (KeyError, IndexError, TypeError, ValueError):
                law = None
        unit = u.friction(key, law)
        name = _GREEK.get(key, rest[-1] if rest else words[-1])
        return _indexed(name, indices), unit
    if top == "model" and len(words) >= 2:
        key = "/".join(words[1:])
        if key in u.model:
            return _indexed(_MODEL_NAMES.get(key, words[-1]), indices), u.model[key]
    last = words[-1] if words else seg[-1]
    return _indexed(last, indices if words else []), None


def _column(name, u):
    """(name, unit) of a column that is not a pointer: q0, u1, lamN0, t, rms_q0, period, ..."""
    if name in _COLUMNS:
        return _COLUMNS[name]
    for prefix, words in _PREFIXES:
        if name.startswith(prefix) and len(name) > len(prefix):
            inner, unit = _column(name[len(prefix):], u)
            return words + inner, unit
    for prefix, symbol in (("lamN", "λN"), ("lamT", "λT")):
        if name.startswith(prefix) and name[len(prefix):].isdigit():
            return symbol + name[len(prefix):], u.force_normal if prefix == "lamN" else u.force_tangential
    if len(name) > 1 and name[0] in "qu" and name[1:].isdigit():
        return name, u.L if name[0] == "q" else u.L + "/s"
    return name, None


def label(path, scenario=None):
    """The axis label of a JSON pointer or a table's column, its name and unit from the scenario (a
    dict, e.g. a result's summary["scenario"]): "/model/Fn" -> "Fn [N]", "/initial/u/1" ->
    "u1 [m/s]", "/friction/mu_s" -> "μs [–]", "q0" -> "q0 [m]" ("q0 [rad]" for the torsion
    pendulum), "t" -> "t [s]". A pointer not in the table gives its last name, never the pointer."""
    name, unit = _name_unit(str(path), scenario)
    return "%s [%s]" % (name, unit) if unit else name


def _value_text(path, value, scenario=None):
    """"Fn = 12 N": a swept value with its name and unit"""
    name, unit = _name_unit(path, scenario)
    return "%s = %.4g%s" % (name, value, "" if not unit or unit == "–" else " " + unit)


# --- colours and markers ----------------------------------------------------------------------
# one colour per class, in the order a reader scans the legend
CLASS_COLOURS = {
    "periodic-1": "tab:blue", "periodic-2": "tab:orange", "periodic-3": "tab:olive", "periodic-4": "tab:green",
    "periodic-5": "tab:purple", "periodic-6": "saddlebrown", "periodic-7": "gold", "periodic-8": "navy",
    "quasi-periodic": "tab:cyan", "chaotic": "tab:red", "undetermined": "tab:pink", "no-stick-slip": "tab:gray",
    "diverged": "black",
}
_ATTRACTOR_COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink",
                      "tab:olive", "tab:cyan")
_ATTRACTOR_MARKERS = "os^Dv<>p"


def class_colour(name):
    """The colour of a class (periodic-1, chaotic, ...) in every figure."""
    return CLASS_COLOURS.get(name, "tab:purple" if str(name).startswith("periodic-") else "tab:brown")


def class_order(name):
    """Sort key of the classes: periodic-N by N, then the others in a fixed reading order."""
    if name.startswith("periodic-") and name[9:].isdigit():
        return (0, int(name[9:]), name)
    rest = ["quasi-periodic", "chaotic", "undetermined", "no-stick-slip", "diverged", "unclassified"]
    return (1, rest.index(name) if name in rest else len(rest), name)


def attractor_style(k):
    """(colour, marker) of attractor number k, the same in every panel: two attractors of one
    class get different ones; 0 (no attractor) is a grey cross."""
    k = int(k)
    if k <= 0:
        return "0.55", "x"
    return _ATTRACTOR_COLOURS[(k - 1) % len(_ATTRACTOR_COLOURS)], _ATTRACTOR_MARKERS[(k - 1) % len(_ATTRACTOR_MARKERS)]
