// src/sweep/basins.cpp — attractors and basins of a sweep over initial conditions
// (sweep/basins.hpp).
#include "fivsim/sweep/basins.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "fivsim/analysis/classification.hpp"
#include "fivsim/sweep/finished_cases.hpp"
#include "fivsim/sweep/results_h5.hpp"
#include "fivsim/core/output_file.hpp"

namespace fivsim::sweep {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

bool is_initial(const std::string& path) { return path.rfind("/initial/", 0) == 0; }

// a case with no attractor to name: it failed, or its class is not known
bool labelled(int klass) {
  return klass != static_cast<int>(CaseClass::diverged) && klass != static_cast<int>(CaseClass::undetermined) &&
         klass != static_cast<int>(CaseClass::unclassified);
}

std::string number_text(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

// a group's values hashed by their bits (FNV-1a over the words; the swept values are finite)
struct GroupHash {
  std::size_t operator()(const std::vector<double>& values) const {
    std::uint64_t h = 1469598103934665603ull;
    for (const double v : values) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &v, sizeof bits);
      h = (h ^ bits) * 1099511628211ull;
    }
    return static_cast<std::size_t>(h ^ (h >> 32));
  }
};

// whether two rows hold the same values of the group columns (all rows do where there are none):
// the rows sorted by their values, neighbours compared (a million rows in a tenth of a second,
// where a hashed set of a million value vectors took most of a second)
bool starts_share_a_group(const std::vector<std::string>& group_paths, const NamedColumns& cases) {
  const std::size_t n = cases.at("class").size();
  if (group_paths.empty()) return n > 1;
  std::vector<const std::vector<double>*> columns;
  for (const std::string& p : group_paths) {
    const auto it = cases.find(p);
    if (it == cases.end()) throw std::invalid_argument("the cases have no column '" + p + "'");
    columns.push_back(&it->second);
  }
  // −0 and 0 compare equal, so −0 joins 0's group as in find_basins
  const auto less = [&](std::size_t a, std::size_t b) {
    for (const std::vector<double>* v : columns)
      if ((*v)[a] != (*v)[b]) return (*v)[a] < (*v)[b];
    return false;
  };
  std::vector<std::size_t> rows(n);
  for (std::size_t r = 0; r < n; ++r) rows[r] = r;
  std::sort(rows.begin(), rows.end(), less);
  for (std::size_t r = 1; r < n; ++r)
    if (!less(rows[r - 1], rows[r])) return true;
  return false;
}

void write_text(const fs::path& file, const std::string& text) { write_new_file(file, text); }

// the columns find_basins reads: the swept paths, class, period_n, period (and the exact orbit's),
// case, and each q and u's settled range, or in a sweep written without them its extremes or RMS
// values (whichever it kept)
std::vector<std::string> basin_columns(const std::vector<std::string>& swept_paths, int n_dof) {
  std::vector<std::string> c = swept_paths;
  c.insert(c.end(), {"class", "case", "period_n", "period", "orbit_period"});
  for (const char* series : {"q", "u"})
    for (int i = 0; i < n_dof; ++i)
      for (const char* kind : {"settled_min_", "settled_max_", "min_", "max_", "rms_"})
        c.push_back(kind + (series + std::to_string(i)));
  return c;
}

}  // namespace

bool sweeps_initial_conditions(const std::vector<std::string>& swept_paths) {
  return std::any_of(swept_paths.begin(), swept_paths.end(), is_initial);
}

namespace {

// how a class's attractor is known by its cases' settled ranges (lo, hi per coordinate)
enum class Identity { orbit, state, hull };

Identity identity_of(int klass) {
  if (klass == static_cast<int>(CaseClass::no_stick_slip)) return Identity::state;
  if (klass == static_cast<int>(CaseClass::periodic)) return Identity::orbit;
  return Identity::hull;
}

// an attractor's ranges while its group's cases join it
struct Ranges {
  std::vector<double> lo, hi;
};

// the columns of the ranges a case settled on: settled_min_/settled_max_ of each q and u, else
// the window's extremes, else its RMS values
struct Coordinates {
  std::vector<std::pair<const std::vector<double>*, const std::vector<double>*>> column;
  std::size_t count() const { return column.size(); }
  double lo(std::size_t i, std::size_t row) const {
    const double a = (*column[i].first)[row], z = (*column[i].second)[row];
    return std::min(a, z);
  }
  double hi(std::size_t i, std::size_t row) const {
    const double a = (*column[i].first)[row], z = (*column[i].second)[row];
    return std::max(a, z);
  }
};

// whether a case with ranges [lo, hi] reached attractor `a` (same class and N, checked before):
// an orbit by its N section points' ranges and its period, an equilibrium by its state (its
// window's range, the remains of its decay, overlaps what the attractor's cases share), a chaotic
// or quasi-periodic attractor by its samples' hull overlapping the attractor's
bool reached(Identity kind, const Ranges& a, const std::vector<double>& lo, const std::vector<double>& hi,
             const double* scale, double tol) {
  for (std::size_t i = 0; i < lo.size(); ++i) {
    const double within = tol * scale[i];
    if (kind == Identity::orbit) {
      if (!(std::fabs(lo[i] - a.lo[i]) <= within) || !(std::fabs(hi[i] - a.hi[i]) <= within)) return false;
    } else if (!(lo[i] <= a.hi[i] + within) || !(hi[i] >= a.lo[i] - within)) {
      return false;
    }
  }
  return true;
}

// the attractor's ranges once a case with [lo, hi] joined it: an equilibrium's narrow to what its
// cases share (each range holds the state its case decays onto), a hull grows to hold them all
void join(Identity kind, Ranges& a, const std::vector<double>& lo, const std::vector<double>& hi) {
  for (std::size_t i = 0; i < lo.size(); ++i) {
    if (kind == Identity::state) {
      const double l = std::max(a.lo[i], lo[i]), h = std::min(a.hi[i], hi[i]);
      a.lo[i] = l <= h ? l : 0.5 * (l + h);
      a.hi[i] = l <= h ? h : 0.5 * (l + h);
    } else if (kind == Identity::hull) {
      a.lo[i] = std::min(a.lo[i], lo[i]);
      a.hi[i] = std::max(a.hi[i], hi[i]);
    }
  }
}

// the groups in the order of their values, the last swept path varying fastest
std::vector<std::size_t> groups_in_value_order(const std::vector<BasinGroup>& groups) {
  std::vector<std::size_t> order(groups.size());
  for (std::size_t g = 0; g < order.size(); ++g) order[g] = g;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return groups[a].values < groups[b].values; });
  return order;
}

// the group before `order[j]` along one swept path: the nearest earlier group in value order
// whose values differ from it in one path only (the previous value of the last path, or at a row's
// start the same value of it in the row before); none for the first
long previous_group(const std::vector<BasinGroup>& groups, const std::vector<std::size_t>& order, std::size_t j) {
  constexpr std::size_t kMostLooks = 4096;
  const std::vector<double>& v = groups[order[j]].values;
  for (std::size_t back = 1; back <= j && back <= kMostLooks; ++back) {
    const std::vector<double>& w = groups[order[j - back]].values;
    std::size_t differ = 0;
    for (std::size_t k = 0; k < v.size(); ++k) differ += v[k] != w[k] ? 1 : 0;
    if (differ == 1) return static_cast<long>(order[j - back]);
  }
  return -1;
}

// numbers the attractors across the groups by continuity: along the groups in value order each
// attractor takes the number of the one it continues in the group before (the same class and N,
// its ranges' midpoints within settings.link_tolerance of the scale, the nearest pairs first; or
// the only one of its class and N in both groups), else a new number and is born there; one that
// none continues dies after its group
void number_across_groups(Basins& b, const std::vector<Ranges>& ranges, const std::vector<double>& scale,
                          std::size_t nc, const BasinSettings& settings) {
  const std::size_t ng = b.groups.size();
  std::vector<std::vector<std::size_t>> in_group(ng);
  for (std::size_t a = 0; a < b.attractors.size(); ++a)
    in_group[static_cast<std::size_t>(b.attractors[a].group)].push_back(a);
  // how far apart two attractors of groups g and h are, relative to the larger of their scales
  const auto distance = [&](std::size_t a, std::size_t c) {
    const Attractor &x = b.attractors[a], &y = b.attractors[c];
    if (x.klass != y.klass || x.period_n != y.period_n) return HUGE_VAL;
    const std::size_t g = static_cast<std::size_t>(x.group), h = static_cast<std::size_t>(y.group);
    double d = x.period_n > 0 ? std::fabs(x.period - y.period) / std::max(x.period, y.period) : 0.0;
    for (std::size_t i = 0; i < nc; ++i) {
      const double mid_x = 0.5 * (ranges[a].lo[i] + ranges[a].hi[i]), mid_y = 0.5 * (ranges[c].lo[i] + ranges[c].hi[i]);
      const double di = std::fabs(mid_x - mid_y) / std::max(scale[g * nc + i], scale[h * nc + i]);
      d = std::max(d, std::isnan(di) ? HUGE_VAL : di);
    }
    return d;
  };
  std::vector<long> continues(b.attractors.size(), -1);  // the attractor each continues
  std::vector<bool> continued(b.attractors.size(), false);
  std::vector<bool> has_next(ng, false);
  int next_id = 0;
  const std::vector<std::size_t> order = groups_in_value_order(b.groups);
  for (std::size_t j = 0; j < order.size(); ++j) {
    const std::size_t g = order[j];
    const long p = previous_group(b.groups, order, j);
    if (p >= 0) {
      has_next[static_cast<std::size_t>(p)] = true;
      std::vector<std::tuple<double, std::size_t, std::size_t>> pairs;
      for (std::size_t a : in_group[g])
        for (std::size_t c : in_group[static_cast<std::size_t>(p)]) {
          const double d = distance(a, c);
          if (d <= settings.link_tolerance) pairs.emplace_back(d, a, c);
        }
      std::sort(pairs.begin(), pairs.end());
      // each attractor of the group before continued once here (a handful: a linear search)
      std::vector<std::size_t> taken;
      for (const auto& [d, a, c] : pairs) {
        if (continues[a] >= 0 || std::find(taken.begin(), taken.end(), c) != taken.end()) continue;
        continues[a] = static_cast<long>(c);
        taken.push_back(c);
        continued[c] = true;
      }
      // the one attractor of a class and N at each of two coarsely spaced values continues the
      // other however far it moved: there is no other for it to be
      const auto only_of_its_kind = [&](std::size_t a, std::size_t group) {
        const Attractor& x = b.attractors[a];
        return std::count_if(in_group[group].begin(), in_group[group].end(), [&](std::size_t o) {
                 return b.attractors[o].klass == x.klass && b.attractors[o].period_n == x.period_n;
               }) == 1;
      };
      for (std::size_t a : in_group[g]) {
        if (continues[a] >= 0 || !only_of_its_kind(a, g)) continue;
        for (std::size_t c : in_group[static_cast<std::size_t>(p)])
          if (b.attractors[c].klass == b.attractors[a].klass && b.attractors[c].period_n == b.attractors[a].period_n &&
              only_of_its_kind(c, static_cast<std::size_t>(p)) &&
              std::find(taken.begin(), taken.end(), c) == taken.end()) {
            continues[a] = static_cast<long>(c);
            taken.push_back(c);
            continued[c] = true;
          }
      }
    }
    for (std::size_t a : in_group[g]) {
      Attractor& x = b.attractors[a];
      if (continues[a] >= 0) {
        x.id = b.attractors[static_cast<std::size_t>(continues[a])].id;
      } else {
        x.id = ++next_id;
        x.born = p >= 0;
      }
    }
  }
  for (std::size_t a = 0; a < b.attractors.size(); ++a)
    b.attractors[a].dies = has_next[static_cast<std::size_t>(b.attractors[a].group)] && !continued[a];
}

}  // namespace

Basins find_basins(const std::vector<std::string>& swept_paths, const NamedColumns& cases, int n_dof,
                   const BasinSettings& settings) {
  const auto column = [&](const std::string& name) -> const std::vector<double>& {
    const auto it = cases.find(name);
    if (it == cases.end()) throw std::invalid_argument("the cases have no column '" + name + "'");
    return it->second;
  };
  const std::vector<double>& klass = column("class");
  const std::vector<double>& period_n = column("period_n");
  const std::vector<double>& sampled_period = column("period");
  // the exact orbit's period where the orbit observer found one
  const auto orbit_period = cases.find("orbit_period");
  const auto period = [&](std::size_t row) {
    if (orbit_period != cases.end() && std::isfinite(orbit_period->second[row])) return orbit_period->second[row];
    return sampled_period[row];
  };
  const long n = static_cast<long>(klass.size());
  Basins b;
  const auto ids = cases.find("case");
  b.case_id.resize(static_cast<std::size_t>(n));
  for (long c = 0; c < n; ++c)
    b.case_id[static_cast<std::size_t>(c)] =
        ids != cases.end() ? static_cast<long>(ids->second[static_cast<std::size_t>(c)]) : c;
  std::vector<const std::vector<double>*> group_columns;
  for (const std::string& p : swept_paths) {
    if (is_initial(p)) continue;
    b.group_paths.push_back(p);
    group_columns.push_back(&column(p));
  }
  // what each case settled on (a sweep written before the settled ranges were: the window's
  // extremes, else its RMS values)
  const char* low = cases.count("settled_min_q0") ? "settled_min_" : cases.count("min_q0") ? "min_" : "rms_";
  const char* high = cases.count("settled_max_q0") ? "settled_max_" : cases.count("max_q0") ? "max_" : "rms_";
  Coordinates coordinate;
  // the swept initial values of each coordinate's kind (q or u): the region the starts sample
  std::vector<std::vector<const std::vector<double>*>> starts;
  for (const char* series : {"q", "u"}) {
    std::vector<const std::vector<double>*> swept;
    for (const std::string& p : swept_paths)
      if (p.rfind(std::string("/initial/") + series + "/", 0) == 0) swept.push_back(&column(p));
    for (int i = 0; i < n_dof; ++i) {
      const std::string s = series + std::to_string(i);
      coordinate.column.emplace_back(&column(low + s), &column(high + s));
      starts.push_back(swept);
    }
  }
  const std::size_t nc = coordinate.count();

  // the groups, in the order of their first case (hashed: a sweep of a million random starts may
  // have as many)
  std::unordered_map<std::vector<double>, long, GroupHash> group_of;
  group_of.reserve(static_cast<std::size_t>(std::min<long>(n, 1 << 20)));
  b.group.assign(static_cast<std::size_t>(n), 0);
  b.attractor.assign(static_cast<std::size_t>(n), 0);
  std::vector<double> values(group_columns.size());
  for (long c = 0; c < n; ++c) {
    // −0 joins 0's group, as the values compare
    for (std::size_t k = 0; k < group_columns.size(); ++k)
      values[k] = (*group_columns[k])[static_cast<std::size_t>(c)] + 0.0;
    const auto [it, added] = group_of.emplace(values, static_cast<long>(b.groups.size()));
    if (added) b.groups.push_back({values, 0, 0});
    b.group[static_cast<std::size_t>(c)] = it->second;
  }
  // the scale a coordinate's tolerance is of, in each group: its extent over the group's labelled
  // cases, or the spread of the starts' swept values of its kind where that is larger (a group
  // whose every case rests on one equilibrium has a tiny extent)
  const std::size_t ng = b.groups.size();
  std::vector<double> lo(ng * nc, INFINITY), hi(ng * nc, -INFINITY);
  std::vector<double> start_lo(ng * nc, INFINITY), start_hi(ng * nc, -INFINITY);
  for (long c = 0; c < n; ++c) {
    const std::size_t cc = static_cast<std::size_t>(c), g = static_cast<std::size_t>(b.group[cc]);
    for (std::size_t i = 0; i < nc; ++i)
      for (const std::vector<double>* v : starts[i]) {
        start_lo[g * nc + i] = std::min(start_lo[g * nc + i], (*v)[cc]);
        start_hi[g * nc + i] = std::max(start_hi[g * nc + i], (*v)[cc]);
      }
    if (!labelled(static_cast<int>(klass[cc]))) continue;
    for (std::size_t i = 0; i < nc; ++i) {
      const double a = coordinate.lo(i, cc), z = coordinate.hi(i, cc);
      if (std::isfinite(a)) lo[g * nc + i] = std::min(lo[g * nc + i], a);
      if (std::isfinite(z)) hi[g * nc + i] = std::max(hi[g * nc + i], z);
    }
  }
  std::vector<double> scale(ng * nc);
  for (std::size_t k = 0; k < ng * nc; ++k) {
    const double extent = hi[k] > lo[k] ? hi[k] - lo[k] : 0.0;
    const double spread = start_hi[k] > start_lo[k] ? start_hi[k] - start_lo[k] : 0.0;
    const double s = std::max(extent, spread);
    scale[k] = s > 0.0 ? s : 1e-12 * (1.0 + std::fabs(hi[k]));
  }
  // each labelled case joins the first attractor of its group it reached, else is a new one
  std::vector<std::vector<std::size_t>> group_attractors(ng);
  std::vector<Ranges> ranges;  // per attractor, as b.attractors
  std::vector<double> case_lo(nc), case_hi(nc);
  for (long c = 0; c < n; ++c) {
    const std::size_t cc = static_cast<std::size_t>(c), g = static_cast<std::size_t>(b.group[cc]);
    BasinGroup& group = b.groups[g];
    ++group.cases;
    const int k = static_cast<int>(klass[cc]);
    if (!labelled(k)) {
      ++group.unlabelled;
      continue;
    }
    const int pn = k == static_cast<int>(CaseClass::periodic) ? static_cast<int>(period_n[cc]) : 0;
    const Identity kind = identity_of(k);
    const double tol = kind == Identity::hull ? settings.wide_tolerance : settings.tolerance;
    for (std::size_t i = 0; i < nc; ++i) {
      case_lo[i] = coordinate.lo(i, cc);
      case_hi[i] = coordinate.hi(i, cc);
    }
    std::size_t found = b.attractors.size();
    for (std::size_t a : group_attractors[g]) {
      const Attractor& x = b.attractors[a];
      if (x.klass != k || x.period_n != pn) continue;
      if (pn > 0 && !(std::fabs(period(cc) - x.period) <= settings.period_tolerance * x.period)) continue;
      if (reached(kind, ranges[a], case_lo, case_hi, &scale[g * nc], tol)) {
        found = a;
        break;
      }
    }
    if (found == b.attractors.size()) {
      group_attractors[g].push_back(found);
      b.attractors.push_back({static_cast<long>(g), static_cast<int>(group_attractors[g].size()), k, pn,
                              pn > 0 ? period(cc) : 0.0, 0, b.case_id[cc], cc});
      ranges.push_back({case_lo, case_hi});
    } else {
      join(kind, ranges[found], case_lo, case_hi);
    }
    ++b.attractors[found].cases;
    b.attractor[cc] = static_cast<int>(found);  // its index, numbered below
  }
  number_across_groups(b, ranges, scale, nc, settings);
  for (long c = 0; c < n; ++c) {
    const std::size_t cc = static_cast<std::size_t>(c);
    if (labelled(static_cast<int>(klass[cc])))
      b.attractor[cc] = b.attractors[static_cast<std::size_t>(b.attractor[cc])].id;
  }
  // by group, then number
  std::stable_sort(b.attractors.begin(), b.attractors.end(), [](const Attractor& x, const Attractor& y) {
    return x.group != y.group ? x.group < y.group : x.id < y.id;
  });
  return b;
}

namespace {

// where along the swept parameters an attractor appears or goes: "born" (absent at the value
// before), "dies" (absent at a value after), both, or neither
std::string change_of(const Attractor& a) {
  return a.born && a.dies ? "born, dies" : a.born ? "born" : a.dies ? "dies" : "";
}

// an attractor's share of its group's cases and its standard error
std::pair<double, double> share(const Attractor& a, const BasinGroup& g) {
  const double n = static_cast<double>(g.cases), p = n > 0 ? static_cast<double>(a.cases) / n : 0.0;
  return {p, n > 0 ? std::sqrt(p * (1.0 - p) / n) : 0.0};
}

}  // namespace

std::string basins_csv(const Basins& b) {
  std::string text;
  for (const std::string& p : b.group_paths) text += p + ",";
  text += "attractor,class,period_n,period,cases,fraction,standard_error,first_case,change\n";
  const auto row = [&](const BasinGroup& g, int id, const std::string& klass, int pn, double period, long cases,
                       long first, const std::string& change) {
    const double n = static_cast<double>(g.cases), p = n > 0 ? static_cast<double>(cases) / n : 0.0;
    for (double v : g.values) text += number_text(v) + ",";
    text += std::to_string(id) + "," + klass + "," + std::to_string(pn) + "," + number_text(period) + "," +
            std::to_string(cases) + "," + number_text(p) + "," + number_text(n > 0 ? std::sqrt(p * (1 - p) / n) : 0.0) +
            "," + (first >= 0 ? std::to_string(first) : std::string()) + "," +
            (change.find(',') != std::string::npos ? "\"" + change + "\"" : change) + "\n";
  };
  std::size_t a = 0;
  for (std::size_t g = 0; g < b.groups.size(); ++g) {
    for (; a < b.attractors.size() && b.attractors[a].group == static_cast<long>(g); ++a) {
      const Attractor& x = b.attractors[a];
      row(b.groups[g], x.id, case_class_name(x.klass, x.period_n), x.period_n, x.period, x.cases, x.first_case,
          change_of(x));
    }
    // the cases with no attractor (failed, or their class unknown): attractor 0
    if (b.groups[g].unlabelled > 0) row(b.groups[g], 0, "none", 0, 0.0, b.groups[g].unlabelled, -1, "");
  }
  return text;
}

std::string attractors_csv(const Basins& b) {
  std::string text = "case,attractor\n";
  for (std::size_t c = 0; c < b.attractor.size(); ++c)
    text += std::to_string(b.case_id[c]) + "," + std::to_string(b.attractor[c]) + "\n";
  return text;
}

json basins_json(const Basins& b) {
  json groups = json::array();
  // the attractors are in group order: one pass over them (a sweep of a million starts may have
  // as many groups)
  std::size_t next = 0;
  for (std::size_t g = 0; g < b.groups.size(); ++g) {
    json attractors = json::array();
    for (; next < b.attractors.size() && b.attractors[next].group == static_cast<long>(g); ++next) {
      const Attractor& a = b.attractors[next];
      const auto [p, se] = share(a, b.groups[g]);
      attractors.push_back({{"attractor", a.id},
                            {"class", case_class_name(a.klass, a.period_n)},
                            {"period_n", a.period_n},
                            {"period", a.period},
                            {"cases", a.cases},
                            {"fraction", p},
                            {"standard_error", se},
                            {"first_case", a.first_case},
                            {"change", change_of(a)}});
    }
    groups.push_back({{"values", b.groups[g].values},
                      {"cases", b.groups[g].cases},
                      {"unlabelled", b.groups[g].unlabelled},
                      {"attractors", attractors}});
  }
  // each attractor once: its class and where it exists, is born and dies
  std::map<int, json> lives;
  for (const Attractor& a : b.attractors) {
    json& life = lives[a.id];
    const std::vector<double>& values = b.groups[static_cast<std::size_t>(a.group)].values;
    if (life.is_null())
      life = {{"attractor", a.id},        {"class", case_class_name(a.klass, a.period_n)},
              {"period_n", a.period_n},   {"groups", 0},
              {"born_at", json::array()}, {"dies_after", json::array()}};
    life["groups"] = life["groups"].get<long>() + 1;
    if (a.born) life["born_at"].push_back(values);
    if (a.dies) life["dies_after"].push_back(values);
  }
  json attractors = json::array();
  for (auto& [id, life] : lives) attractors.push_back(std::move(life));
  return {{"parameters", b.group_paths}, {"groups", groups}, {"attractors", attractors}};
}

bool set_basins_summary(const Basins& b, json& summary) {
  summary.erase("basins");
  summary.erase("basins_skipped");
  const bool shared = std::any_of(b.groups.begin(), b.groups.end(), [](const BasinGroup& g) { return g.cases > 1; });
  if (shared) {
    summary["basins"] = basins_json(b);
    return true;
  }
  summary["basins_skipped"] = basins_skipped_reason(b.group_paths);
  return false;
}

std::string basins_skipped_reason(const std::vector<std::string>& group_paths) {
  std::string paths;
  for (const std::string& p : group_paths) paths += (paths.empty() ? "" : ", ") + p;
  return "no two starts share their values of " + (paths.empty() ? "the swept parameters" : paths) +
         ": each start is a group of its own, whose one attractor has all of it; sweep those "
         "parameters on a grid or as values to measure basins at each";
}

std::vector<std::string> write_basins(const fs::path& dir, const std::vector<std::string>& swept_paths, int n_dof,
                                      json& summary) {
  summary.erase("basins");
  summary.erase("basins_skipped");
  if (!sweeps_initial_conditions(swept_paths)) return {};
  const fs::path h5 = dir / "results.h5";
  if (!(fs::exists(h5) && results_h5_has_table(h5, "cases")) && !fs::exists(dir / "cases.csv")) return {};
  // first the groups alone: a sweep whose every start is a group of its own (a random parameter
  // beside the starts) needs none of its other columns read back
  std::vector<std::string> group_paths;
  for (const std::string& p : swept_paths)
    if (!is_initial(p)) group_paths.push_back(p);
  std::vector<std::string> wanted = group_paths;
  wanted.push_back("class");
  const NamedColumns groups = read_sweep_cases(dir, wanted);
  if (!groups.count("class")) return {};
  if (!starts_share_a_group(group_paths, groups)) {
    summary["basins_skipped"] = basins_skipped_reason(group_paths);
    return {};
  }
  // then the columns find_basins reads
  const NamedColumns cols = read_sweep_cases(dir, basin_columns(swept_paths, n_dof));
  const Basins b = find_basins(swept_paths, cols, n_dof);
  if (!set_basins_summary(b, summary)) return {};
  write_text(dir / "basins.csv", basins_csv(b));
  write_text(dir / "attractors.csv", attractors_csv(b));
  return {"basins.csv", "attractors.csv"};
}

}  // namespace fivsim::sweep
