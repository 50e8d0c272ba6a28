// src/cli/stability_command.cpp — `fivsim stability`: the scan of app/stability_scan.hpp (eigenvalues
// of the linearised steady-sliding system versus one scenario parameter and the critical values,
// seed 000 Fig. 19) written to stability.csv (one row per value) and stability.json.
#include <cstdio>

#include "cli_common.hpp"
#include "fivsim/io/output.hpp"
#include "fivsim/app/stability_scan.hpp"

namespace fivsim::cli {
namespace {

std::string format_value(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

int stability_command(const StabilityArgs& args) {
  return exit_code_of("stability", [&] {
    json base = load_json_file(args.scenario);
    for (const auto& s : args.set) apply_override(base, s);
    const std::string name = base.is_object() && base.contains("name") && base["name"].is_string()
                                 ? base["name"].get<std::string>()
                                 : std::string("scenario");
    StagedDirectory dir(output_folder(args.out, name + "_stability"), {args.scenario});
    const StabilityScan scan = scan_stability(base, args.param, args.linspace);
    const json& j = scan.report;
    write_columns(scan.table, dir.file("stability.csv"));
    write_json_file(dir.file("stability.json"), j);
    dir.commit();

    const json& crossings = j["crossings"];
    const std::string& param = scan.parameter;
    const std::vector<double>& values = scan.table.columns[0];
    if (crossings.empty()) {
      std::printf(
          "stability %s: %s from %s to %s: no crossing of the imaginary axis (max real part %s at the start) -> %s\n",
          name.c_str(), param.c_str(), format_value(values.front()).c_str(), format_value(values.back()).c_str(),
          format_value(scan.table.columns[1].front()).c_str(), dir.final_path().c_str());
    } else {
      for (const auto& c : crossings)
        std::printf("stability %s: critical %s = %.10g (the sliding equilibrium becomes %s) -> %s\n", name.c_str(),
                    param.c_str(), c["value"].get<double>(), c["becomes"].get<std::string>().c_str(),
                    dir.final_path().c_str());
    }
    const std::string note = j["note"].get<std::string>();
    if (!note.empty()) std::printf("note: %s\n", note.c_str());
    return kExitOk;
  });
}

}  // namespace fivsim::cli
