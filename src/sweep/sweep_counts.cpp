// src/sweep/sweep_counts.cpp — chunk counts, their manifest form, and the totals of summary.json
// (sweep/sweep_counts.hpp).
#include "fivsim/sweep/sweep_counts.hpp"

#include <cmath>
#include <string>

namespace fivsim::sweep {

using nlohmann::json;

void ChunkCounts::add(const ChunkCounts& o) {
  case_steps += o.case_steps;
  compute_s += o.compute_s;
  setup_s += o.setup_s;
  launch_s += o.launch_s;
  wait_s += o.wait_s;
  columns_s += o.columns_s;
  for (const auto& [name, count] : o.classes) classes[name] += count;
  for (const auto& [name, count] : o.status) status[name] += count;
  memory_halvings += o.memory_halvings;
  if (o.has_pinn) {
    has_pinn = true;
    pinn.add(o.pinn);
  }
}

json to_json(const ChunkCounts& c) {
  json j = {{"case_steps", static_cast<long long>(c.case_steps)},
            {"compute_s", c.compute_s},
            {"setup_s", c.setup_s},
            {"launch_s", c.launch_s},
            {"wait_s", c.wait_s},
            {"columns_s", c.columns_s},
            {"classes", c.classes},
            {"status", c.status}};
  if (c.memory_halvings > 0) j["memory_halvings"] = c.memory_halvings;
  if (c.has_pinn) j["pinn"] = pinn_totals_json(c.pinn);
  return j;
}

bool from_json(const json& j, ChunkCounts& c) {
  const auto number = [&j](const char* key) { return j.contains(key) && j[key].is_number(); };
  const auto whole = [](const json& v) { return v.is_number_integer(); };
  if (!j.is_object() || !number("case_steps") || !number("compute_s") || !number("setup_s")) return false;
  ChunkCounts out;
  out.case_steps = j["case_steps"].get<double>();
  out.compute_s = j["compute_s"].get<double>();
  out.setup_s = j["setup_s"].get<double>();
  // the host's stages: absent from a manifest an older fivsim wrote
  for (const auto& [key, field] : {std::pair{"launch_s", &ChunkCounts::launch_s},
                                   {"wait_s", &ChunkCounts::wait_s},
                                   {"columns_s", &ChunkCounts::columns_s}}) {
    if (j.contains(key) && !number(key)) return false;
    out.*field = j.value(key, 0.0);
  }
  for (const char* key : {"classes", "status"}) {
    if (!j.contains(key) || !j[key].is_object()) return false;
    for (const auto& [name, count] : j[key].items()) {
      if (!whole(count)) return false;
      (std::string(key) == "classes" ? out.classes : out.status)[name] = count.get<long>();
    }
  }
  if (j.contains("memory_halvings")) {
    if (!whole(j["memory_halvings"])) return false;
    out.memory_halvings = j["memory_halvings"].get<long>();
  }
  if (j.contains("pinn")) {
    const json& p = j["pinn"];
    if (!p.is_object() || !p.contains("max_dynamic_loss") || !p["max_dynamic_loss"].is_number()) return false;
    for (const char* key : {"dynamic_iterations", "lcp_iterations", "unconverged_steps"})
      if (!p.contains(key) || !whole(p[key])) return false;
    out.has_pinn = true;
    out.pinn = PinnTotals{p["dynamic_iterations"].get<long>(), p["lcp_iterations"].get<long>(),
                          p["max_dynamic_loss"].get<double>(), p["unconverged_steps"].get<long>()};
  }
  c = std::move(out);
  return true;
}

namespace {

// a sweep over initial conditions alone (every swept path under /initial/): each class's share of
// the cases is the basin stability of its attractor (Menck, Heitzig, Marwan & Kurths, Nature
// Physics 9, 2013), with the standard error √(p(1 − p)/n) of a share of n random samples
void write_basin_stability(json& s) {
  s.erase("basin_stability");
  if (!s.contains("scenario") || !s["scenario"].contains("sweep")) return;
  const json& params = s["scenario"]["sweep"].value("parameters", json::array());
  if (params.empty()) return;
  for (const json& p : params)
    if (p.value("path", std::string()).rfind("/initial/", 0) != 0) return;
  long n = 0;
  for (const auto& [name, count] : s["classes"].items()) n += count.get<long>();
  if (n <= 0) return;
  json b = json::object();
  for (const auto& [name, count] : s["classes"].items()) {
    const double p = static_cast<double>(count.get<long>()) / static_cast<double>(n);
    b[name] = {{"fraction", p},
               {"standard_error", std::sqrt(p * (1.0 - p) / static_cast<double>(n))},
               {"cases", count.get<long>()}};
  }
  s["basin_stability"] = b;
}

}  // namespace

void write_totals(const SweepTotals& t, json& s) {
  s["cases"] = t.cases;
  s["chunks"] = t.chunks;
  // a count: an integer in the file
  s["case_steps"] = static_cast<long long>(t.counts.case_steps);
  s["wall_s"] = t.wall_s;
  s["setup_s"] = t.counts.setup_s;
  s["compute_s"] = t.counts.compute_s;
  // where the host's time went, stage by stage (kernel_s: the backend's own, as compute_s)
  s["stages"] = {{"prepare_s", t.counts.setup_s},  {"launch_s", t.counts.launch_s},   {"wait_s", t.counts.wait_s},
                 {"kernel_s", t.counts.compute_s}, {"columns_s", t.counts.columns_s}, {"write_s", t.write_s}};
  s["case_steps_per_s"] = t.case_steps_per_s;
  s["end_to_end_case_steps_per_s"] = t.wall_s > 0 ? t.counts.case_steps / t.wall_s : 0.0;
  s["ranks"] = t.ranks;
  s.erase("memory_halvings");
  if (t.counts.memory_halvings > 0) s["memory_halvings"] = t.counts.memory_halvings;
  s["classes"] = t.counts.classes;
  s["status"] = t.counts.status;
  if (t.counts.has_pinn) {
    json p = pinn_totals_json(t.counts.pinn);
    // what the summary says of the PINN settings stays
    if (s.contains("pinn"))
      for (const auto& [key, value] : s["pinn"].items())
        if (!p.contains(key)) p[key] = value;
    s["pinn"] = p;
  }
  write_basin_stability(s);
}

SweepTotals read_totals(const json& s) {
  SweepTotals t;
  t.cases = s.at("cases").get<long>();
  t.chunks = s.at("chunks").get<long>();
  t.counts.case_steps = s.at("case_steps").get<double>();
  t.counts.compute_s = s.at("compute_s").get<double>();
  t.counts.setup_s = s.at("setup_s").get<double>();
  if (s.contains("stages")) {
    const json& st = s.at("stages");
    t.counts.launch_s = st.value("launch_s", 0.0);
    t.counts.wait_s = st.value("wait_s", 0.0);
    t.counts.columns_s = st.value("columns_s", 0.0);
    t.write_s = st.value("write_s", 0.0);
  }
  t.wall_s = s.at("wall_s").get<double>();
  t.case_steps_per_s = s.at("case_steps_per_s").get<double>();
  t.counts.memory_halvings = s.value("memory_halvings", 0L);
  for (const auto& [name, count] : s.at("classes").items()) t.counts.classes[name] = count.get<long>();
  for (const auto& [name, count] : s.at("status").items()) t.counts.status[name] = count.get<long>();
  if (s.contains("pinn")) {
    const json& p = s.at("pinn");
    t.counts.has_pinn = true;
    t.counts.pinn = PinnTotals{p.at("dynamic_iterations").get<long>(), p.at("lcp_iterations").get<long>(),
                               p.at("max_dynamic_loss").get<double>(), p.at("unconverged_steps").get<long>()};
  }
  t.ranks = s.value("ranks", json::array());
  return t;
}

}  // namespace fivsim::sweep
