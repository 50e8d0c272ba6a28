// src/cli/friction_command.cpp — `fivsim friction`: a scenario's friction law driven by the
// sliding velocity v(t) = A sin(2π f t) (seed 002 Fig. 6). Writes friction.csv (t, v, mu, F, z)
// and friction.json into --out.
#include <cmath>
#include <cstdio>

#include "cli_common.hpp"
#include "fivsim/core/limits.hpp"
#include "fivsim/friction/friction_response.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim::cli {

int friction_command(const FrictionArgs& args) {
  return exit_code_of("friction", [&] {
    const LoadedScenario loaded = load_scenario(args);
    double amplitude = args.amplitude, f_hz = args.f_hz;
    const json& doc = loaded.scenario.document;
    const bool pendulum = loaded.scenario.model.type == "torsion_pendulum";
    if (std::isnan(amplitude)) {
      if (!pendulum) throw InputError("--amplitude", "is required (only torsion_pendulum has a default input)");
      amplitude = doc["model"]["input"]["amplitude"].get<double>();
    }
    if (std::isnan(f_hz)) {
      if (!pendulum) throw InputError("--f-hz", "is required (only torsion_pendulum has a default input)");
      f_hz = doc["model"]["input"]["f_hz"].get<double>();
    }
    if (!std::isfinite(amplitude)) throw InputError("--amplitude", "must be finite");
    if (!(f_hz > 0) || !std::isfinite(f_hz)) throw InputError("--f-hz", "must be > 0");
    if (args.contact < 0 || args.contact >= loaded.scenario.model.n_contacts())
      throw InputError("--contact", "must name one of the model's " +
                                        std::to_string(loaded.scenario.model.n_contacts()) + " contacts");
    if (!(args.t_end >= 0) || !std::isfinite(args.t_end))
      throw InputError("--t-end", "must be > 0 (or 0: two periods)");
    if (!(args.dt >= 0) || !std::isfinite(args.dt))
      throw InputError("--dt", "must be > 0 (or 0: a 2000th of a period)");
    // the samples are held in memory, and a dynamic law's substeps per sample bounded (core/limits.hpp)
    const double period = 1.0 / f_hz;
    const double t_end = args.t_end > 0 ? args.t_end : 2.0 * period;
    const double dt = args.dt > 0 ? args.dt : period / 2000.0;
    if (!(t_end / dt <= kMaxHeldSamples))
      throw InputError(args.t_end > 0 ? "--t-end" : "--dt",
                       "t_end/dt = " + format_double(t_end / dt) + " samples; fivsim friction holds at most 1e8");
    const ContactDescription& c = loaded.scenario.model.contacts[static_cast<std::size_t>(args.contact)];
    const double sub = friction_substeps(c.dynamic, c.dynamic_law, amplitude, dt);
    if (!(sub <= kMaxFrictionSubsteps))
      throw InputError("--amplitude", "at |v| = " + format_double(std::abs(amplitude)) +
                                          " the law's bristle dynamics need " + format_double(sub) +
                                          " RK4 substeps per sample (at most 1e6): a smaller amplitude or --dt");
    const Scenario& sc = loaded.scenario;
    const double w = 2.0 * M_PI * f_hz;
    StagedDirectory dir(output_folder(args.out, sc.name + "_friction"), {args.scenario});
    const std::vector<FrictionSample> samples = friction_response(
        c.law, c.dynamic, c.dynamic_law, [&](double t) { return amplitude * std::sin(w * t); }, t_end, dt);
    double lo = 0.0, hi = 0.0;
    {
      CsvWriter csv(dir.file("friction.csv"));
      for (const char* h : {"t", "v", "mu", "F", "z"}) csv.field(h);
      csv.end_row();
      for (const FrictionSample& s : samples) {
        for (double x : {s.t, s.v, s.mu, s.mu * c.Fn, s.z}) csv.field(x);
        csv.end_row();
        lo = std::min(lo, s.mu * c.Fn);
        hi = std::max(hi, s.mu * c.Fn);
      }
      csv.close();
    }
    const std::string law = sc.document["friction"].is_object() ? sc.document["friction"].value("law", "") : "";
    json j = {{"name", sc.name},         {"law", law},      {"dynamic", c.dynamic},
              {"contact", args.contact}, {"Fn", c.Fn},      {"input", {{"amplitude", amplitude}, {"f_hz", f_hz}}},
              {"t_end", t_end},          {"dt", dt},        {"samples", samples.size()},
              {"min_force", lo},         {"max_force", hi}, {"scenario", sc.document}};
    write_json_file(dir.file("friction.json"), j);
    dir.commit();
    std::printf("friction %s (%s): v = %g sin(2π·%g t), %zu samples, F in [%.6g, %.6g] -> %s\n", sc.name.c_str(),
                law.c_str(), amplitude, f_hz, samples.size(), lo, hi, dir.final_path().c_str());
    return kExitOk;
  });
}

}  // namespace fivsim::cli
