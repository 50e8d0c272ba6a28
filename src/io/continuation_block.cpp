// src/io/continuation_block.cpp — a scenario's continuation block read and checked
// (io/continuation_block.hpp).
#include "fivsim/io/continuation_block.hpp"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "fivsim/core/limits.hpp"
#include "fivsim/io/json_reader.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim {
namespace {

using nlohmann::json;

// arclength steps over a parameter's range: by default a hundredth of it to start, a twentieth at
// most; the block's `step` overrides
void parse_steps(JsonObject& c, double lo, double hi, ContinuationSettings& s) {
  const double width = hi - lo;
  s.ds = 0.01 * width;
  s.ds_max = 0.05 * width;
  s.ds_min = 1e-7 * width;
  if (c.has("step")) {
    JsonObject st = c.object("step");
    s.ds = st.number_or("initial", s.ds, NumberRule::positive);
    s.ds_min = st.number_or("min", s.ds_min, NumberRule::positive);
    s.ds_max = st.number_or("max", s.ds_max, NumberRule::positive);
    if (!(s.ds_min <= s.ds && s.ds <= s.ds_max)) throw InputError(st.pointer(), "needs min <= initial <= max");
    st.finish();
  }
}

// a JSON pointer that a continuation may vary: a number of /model or /friction that the scenario holds
void check_parameter(const JsonObject& c, const std::string& path, const json& doc) {
  if (path.rfind("/model/", 0) != 0 && path.rfind("/friction/", 0) != 0)
    throw InputError(
        c.pointer_of("parameter"),
        "'" + path + "' cannot be continued: equilibria and orbits move with the numbers of /model and /friction");
  bool number = false;
  try {
    const json::json_pointer at(path);
    number = doc.contains(at) && doc[at].is_number();
  } catch (const json::exception&) {
  }
  if (!number)
    throw InputError(c.pointer_of("parameter"),
                     "'" + path + "' is not a number of the scenario (name one it gives, such as /model/Fn)");
}

}  // namespace

ContinuationBlock parse_continuation_block(const json& doc) {
  if (!doc.is_object() || !doc.contains("continuation"))
    throw InputError("/continuation", "is required: {\"parameter\": \"/model/...\", \"range\": [a, b]}");
  JsonObject c(doc["continuation"], "/continuation");
  ContinuationBlock b;
  b.parameter = c.string("parameter");
  check_parameter(c, b.parameter, doc);
  const std::vector<double> range = c.numbers("range", 2);
  if (!(range[0] < range[1])) throw InputError(c.pointer_of("range"), "must be [a, b] with a < b");
  b.lo = range[0];
  b.hi = range[1];
  b.direction = c.choice_or("direction", "up", {"up", "down"}) == "up" ? 1 : -1;
  const std::string start = c.choice_or("start", "equilibrium", {"equilibrium", "orbit", "sweep"});
  b.orbit = start != "equilibrium";
  if (start == "sweep") {
    b.from = c.string("from");
    if (!std::filesystem::is_directory(b.from))
      throw InputError(c.pointer_of("from"), "'" + b.from + "' is not a folder (the output folder of `fivsim sweep`)");
    b.at_once = c.integer_or("at_once", 0, 0);
  } else {
    for (const char* key : {"from", "at_once"})
      if (c.has(key)) throw InputError(c.pointer_of(key), "is read with \"start\": \"sweep\" alone");
  }
  if (c.has("shooting") && !b.orbit)
    throw InputError(c.pointer_of("shooting"), "is read for orbits (start orbit or sweep)");
  b.multiple = c.choice_or("shooting", "single", {"single", "multiple"}) == "multiple";
  b.period_n = static_cast<int>(c.integer_or("period_n", 1, 1));
  if (b.period_n > 32) throw InputError(c.pointer_of("period_n"), "must be <= 32");
  b.settle = c.number_or("settle", 0.0, NumberRule::non_negative);
  // a sweep's doubled orbits are families of their own: no branch switching by default
  b.doublings = static_cast<int>(c.integer_or("doublings", start == "sweep" ? 0 : 1, 0));
  ContinuationSettings& s = b.settings;
  s.p_min = b.lo;
  s.p_max = b.hi;
  s.direction = b.direction;
  parse_steps(c, b.lo, b.hi, s);
  s.tol = c.number_or("tol", s.tol, NumberRule::positive);
  s.max_points = c.integer_or("max_points", s.max_points, 2);
  if (s.max_points > kMaxContinuationPoints)
    throw InputError(c.pointer_of("max_points"), "must be <= 1e6 (a branch of more points would not end in a day)");
  s.locate_tol = c.number_or("locate_tol", s.locate_tol, NumberRule::positive);
  if (c.has("curves")) {
    // each fold and period doubling of the orbits, or Hopf point of the equilibria, followed in a second parameter
    JsonObject cv = c.object("curves");
    b.second = cv.string("parameter");
    check_parameter(cv, b.second, doc);
    if (b.second == b.parameter)
      throw InputError(cv.pointer_of("parameter"), "must differ from /continuation/parameter");
    const std::vector<double> r = cv.numbers("range", 2);
    if (!(r[0] < r[1])) throw InputError(cv.pointer_of("range"), "must be [a, b] with a < b");
    const json::json_pointer at(b.second);
    b.second_base = doc[at].get<double>();
    if (!(b.second_base >= r[0] && b.second_base <= r[1]))
      throw InputError(cv.pointer_of("range"), "must hold the scenario's " + b.second + " = " +
                                                   format_double(b.second_base) + ", where each curve starts");
    ContinuationSettings& cs = b.curve_settings;
    cs.p_min = r[0];
    cs.p_max = r[1];
    // a curve's arclength runs in both parameters: its steps scale with the wider range
    const double wide = std::max(r[1] - r[0], b.hi - b.lo);
    parse_steps(cv, 0.0, wide, cs);
    // g carries the error of the return map's Jacobian (the variational equations at the
    // integrator's tolerance): a corrector tolerance of 1e-10 is below its noise
    cs.tol = cv.number_or("tol", 1e-8, NumberRule::positive);
    cs.max_points = cv.integer_or("max_points", s.max_points, 2);
    if (cs.max_points > kMaxContinuationPoints)
      throw InputError(cv.pointer_of("max_points"), "must be <= 1e6 (a curve of more points would not end in a day)");
    cs.locate_tol = s.locate_tol;
    cv.finish();
  }
  c.finish();
  return b;
}

}  // namespace fivsim
