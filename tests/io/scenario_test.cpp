// tests/io/scenario_test.cpp — scenario validation: every bundled scenario is valid, and each kind
// of bad input is rejected with the JSON pointer of the offending value.
#include "fivsim/io/scenario.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fivsim {
namespace {

json base_scenario() {
  return json::parse(R"({
    "name": "t",
    "model": {"type": "slider_belt", "m": 1.0, "k": 1.0, "c": 0.0, "v0": 0.5, "Fn": 10.0},
    "friction": {"law": "stribeck_rational", "mu_s": 0.1, "delta": 1.0},
    "initial": {"q": [0.0], "u": [0.0]},
    "integrator": {"method": "moreau", "dt": 0.01, "t_end": 40.0, "lcp_solver": "lemke"},
    "analysis": {"t_transient": 0.0},
    "output": {"timeseries": true, "every": 1}
  })");
}

// parse `doc` after the override and return the error's pointer (empty when it parsed)
std::string error_pointer(json doc, const std::string& assignment, std::string* message = nullptr) {
  try {
    if (!assignment.empty()) apply_override(doc, assignment);
    parse_scenario(doc);
  } catch (const InputError& e) {
    if (message) *message = e.what();
    return e.pointer;
  }
  return "";
}

TEST(Scenario, BundledScenariosAreValid) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(FIVSIM_SOURCE_DIR "/scenarios")) {
    if (entry.path().extension() != ".json") continue;
    ++count;
    EXPECT_NO_THROW(parse_scenario(load_json_file(entry.path().string()))) << entry.path();
  }
  EXPECT_GE(count, 9);
}

TEST(Scenario, BaseParses) {
  const Scenario s = parse_scenario(base_scenario());
  EXPECT_EQ(s.integrator.steps, 4000);
  EXPECT_EQ(s.model.dof(), 1);
  EXPECT_EQ(s.model.contacts[0].law.kind, FrictionLawKind::stribeck_rational);
}

TEST(Scenario, MalformedJsonNamesTheFileAndLine) {
  const auto path = std::filesystem::temp_directory_path() / "fivsim_malformed.json";
  { std::ofstream(path) << "{\n  \"name\": \"x\",\n  \"model\": {\n}"; }
  try {
    load_json_file(path.string());
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("malformed JSON"), std::string::npos) << msg;
    EXPECT_NE(msg.find("line 4"), std::string::npos) << msg;
  }
  std::filesystem::remove(path);
}

TEST(Scenario, UnknownKey) {
  std::string msg;
  EXPECT_EQ(error_pointer(base_scenario(), "/model/kk=1", &msg), "/model/kk");
  EXPECT_NE(msg.find("unknown key"), std::string::npos);
  EXPECT_EQ(error_pointer(base_scenario(), "/integrator/order=4"), "/integrator/order");
  EXPECT_EQ(error_pointer(base_scenario(), "/extra={}"), "/extra");
}

TEST(Scenario, WrongArrayLength) {
  std::string msg;
  EXPECT_EQ(error_pointer(base_scenario(), "/initial/q=[0, 1]", &msg), "/initial/q");
  EXPECT_NE(msg.find("must have 1 entries"), std::string::npos) << msg;
}

TEST(Scenario, NonPositiveStepAndEndTime) {
  EXPECT_EQ(error_pointer(base_scenario(), "/integrator/dt=0"), "/integrator/dt");
  EXPECT_EQ(error_pointer(base_scenario(), "/integrator/dt=-0.1"), "/integrator/dt");
  EXPECT_EQ(error_pointer(base_scenario(), "/integrator/t_end=0"), "/integrator/t_end");
}

TEST(Scenario, NonPositiveMass) {
  std::string msg;
  EXPECT_EQ(error_pointer(base_scenario(), "/model/m=0", &msg), "/model/m");
  EXPECT_NE(msg.find("must be > 0"), std::string::npos) << msg;
}

TEST(Scenario, NegativeFrictionCoefficient) {
  std::string msg;
  EXPECT_EQ(error_pointer(base_scenario(), "/friction/mu_s=-0.1", &msg), "/friction/mu_s");
  EXPECT_NE(msg.find("must be >= 0"), std::string::npos) << msg;
}

TEST(Scenario, NanAndInf) {
  std::string msg;
  EXPECT_EQ(error_pointer(base_scenario(), "/model/k=nan", &msg), "/model/k");
  EXPECT_NE(msg.find("finite"), std::string::npos) << msg;
  EXPECT_EQ(error_pointer(base_scenario(), "/initial/u/0=inf"), "/initial/u/0");
  EXPECT_EQ(error_pointer(base_scenario(), "/model/v0=-inf"), "/model/v0");
}

TEST(Scenario, UnknownLawAndPreset) {
  std::string msg;
  EXPECT_EQ(error_pointer(base_scenario(), "/friction/law=\"lugre2\"", &msg), "/friction/law");
  EXPECT_NE(msg.find("stribeck_rational"), std::string::npos) << msg;  // lists the known laws
  EXPECT_EQ(error_pointer(base_scenario(), "/model/type=\"slider\""), "/model/type");
}

TEST(Scenario, WrongTypes) {
  EXPECT_EQ(error_pointer(base_scenario(), "/model/m=\"heavy\""), "/model/m");
  EXPECT_EQ(error_pointer(base_scenario(), "/initial/q=3"), "/initial/q");
  EXPECT_EQ(error_pointer(base_scenario(), "/model=[]"), "/model");
}

TEST(Scenario, MissingRequiredValues) {
  json doc = base_scenario();
  doc["model"].erase("Fn");
  EXPECT_EQ(error_pointer(doc, ""), "/model/Fn");
  doc = base_scenario();
  doc.erase("friction");
  EXPECT_EQ(error_pointer(doc, ""), "/friction");
}

TEST(Scenario, SolverThatCannotSolveTheModel) {
  std::string msg;
  EXPECT_EQ(error_pointer(base_scenario(), "/integrator/lcp_solver=\"pgs\"", &msg), "/integrator/lcp_solver");
  EXPECT_NE(msg.find("zero diagonal"), std::string::npos) << msg;
  EXPECT_EQ(error_pointer(base_scenario(), "/integrator/lcp_solver=\"enum\""), "");
}

TEST(Scenario, PinnSettingsAndTheirErrors) {
  json doc = base_scenario();
  doc["integrator"]["method"] = "pinn_adv_dual";
  doc["integrator"]["order"] = 10;
  doc["integrator"]["pinn"] = {{"hidden", {20, 20, 20}},
                               {"activation", "mish"},
                               {"optimizer", "adam+lbfgs"},
                               {"tol", 1e-20},
                               {"seed", 7},
                               {"lcp", {{"layers", 3}, {"width", 5}, {"c1", 0.5}}}};
  const Scenario s = parse_scenario(doc);
  const MethodSpec spec = s.integrator.spec();
  EXPECT_EQ(spec.kind, MethodKind::pinn);
  EXPECT_EQ(spec.framework, PinnFramework::adv_dual);
  EXPECT_EQ(spec.stages, 10);
  EXPECT_EQ(spec.pinn.hidden, (std::vector<int>{20, 20, 20}));
  EXPECT_EQ(spec.pinn.activation, Activation::mish);
  EXPECT_EQ(spec.pinn.optimizer.kind, OptimizerKind::adam_lbfgs);
  EXPECT_EQ(spec.pinn.lcp.seed, 7u);
  EXPECT_DOUBLE_EQ(spec.pinn.lcp.c1, 0.5);
  EXPECT_EQ(spec.label(), "pinn_adv_dual10");

  std::string msg;
  EXPECT_EQ(error_pointer(doc, "/integrator/pinn/hidden/1=2.5", &msg), "/integrator/pinn/hidden/1");
  EXPECT_EQ(error_pointer(doc, "/integrator/pinn/lcp/width=99", &msg), "/integrator/pinn/lcp/width");
  EXPECT_EQ(error_pointer(doc, "/integrator/pinn/bogus=1", &msg), "/integrator/pinn/bogus");
  EXPECT_EQ(error_pointer(doc, "/integrator/order=101", &msg), "/integrator/order");
  EXPECT_EQ(error_pointer(doc, "/integrator/method=\"moreau\"", &msg), "/integrator/pinn");
  EXPECT_EQ(error_pointer(doc, "/integrator/lcp_solver=\"lcp_pinn\"", &msg), "");  // the dual methods' own
  // the LCP-PINN as the classical steppers' solver: only its own settings apply
  json moreau = base_scenario();
  moreau["integrator"]["lcp_solver"] = "lcp_pinn";
  moreau["integrator"]["pinn"] = {{"seed", 3}, {"lcp", {{"width", 6}, {"polish", false}}}};
  const MethodSpec ms = parse_scenario(moreau).integrator.spec();
  EXPECT_TRUE(ms.lcp_pinn);
  EXPECT_EQ(ms.pinn.lcp.width, 6);
  EXPECT_FALSE(ms.pinn.lcp.polish);
  EXPECT_EQ(ms.label(), "moreau+lcp_pinn");
  EXPECT_EQ(error_pointer(moreau, "/integrator/pinn/hidden=[5]", &msg), "/integrator/pinn/hidden");
  EXPECT_EQ(error_pointer(moreau, "/integrator/method=\"switching\"", &msg), "/integrator/pinn");
  moreau["integrator"].erase("pinn");
  EXPECT_EQ(error_pointer(moreau, "/integrator/method=\"switching\"", &msg), "/integrator/lcp_solver");
  EXPECT_NE(msg.find("lemke, pgs or enum"), std::string::npos) << msg;
  json single = doc;
  single["integrator"]["lcp_solver"] = "lcp_pinn";
  EXPECT_EQ(error_pointer(single, "/integrator/method=\"pinn_single\"", &msg), "/integrator/lcp_solver");
}

TEST(Scenario, RungeKuttaSettings) {
  json doc = base_scenario();
  doc["integrator"]["method"] = "irk";
  doc["integrator"]["order"] = 10;
  doc["integrator"]["stage_forces"] = "interpolated";
  const Scenario s = parse_scenario(doc);
  EXPECT_EQ(s.integrator.order, 10);
  EXPECT_EQ(s.integrator.stage_forces, StageForces::ramp);
  EXPECT_EQ(error_pointer(doc, "/integrator/order=0"), "/integrator/order");
  EXPECT_EQ(error_pointer(doc, "/integrator/order=201"), "/integrator/order");
  EXPECT_EQ(error_pointer(doc, "/integrator/order=2.5"), "/integrator/order");
  EXPECT_EQ(error_pointer(doc, "/integrator/stage_forces=\"linear\""), "/integrator/stage_forces");
  // stage forces mean nothing to Moreau: an unknown key there
  EXPECT_EQ(error_pointer(base_scenario(), "/integrator/stage_forces=\"held\""), "/integrator/stage_forces");
}

TEST(Scenario, ChainArraysAndBroadcast) {
  json doc = base_scenario();
  doc["model"] = {{"type", "slider_chain"}, {"n", 3}, {"m", 1.0}, {"k", {1, 2, 3}}, {"v0", 0.3}, {"Fn", {4, 5, 6}}};
  doc["initial"] = {{"q", {0.5, 0.5, 0.5}}};
  const Scenario s = parse_scenario(doc);
  EXPECT_EQ(s.model.dof(), 3);
  EXPECT_DOUBLE_EQ(s.model.contacts[1].Fn, 5.0);
  EXPECT_EQ(error_pointer(doc, "/model/k=[1, 2]"), "/model/k");
  EXPECT_EQ(error_pointer(doc, "/model/n=0"), "/model/n");
}

TEST(Scenario, LinearMultibodyChecksShapes) {
  json doc = base_scenario();
  doc["model"] = json::parse(R"({"type": "linear_multibody", "M": [[1, 0], [0, 1]], "K": [[1, 0], [0, 1]],
      "contacts": [{"kind": "spring", "k_c": 100, "w_N": [0, 1], "w_T": [1, 0], "v_surface": 1}]})");
  doc["initial"] = {{"q", {0, 0}}, {"u", {0, 0}}};
  EXPECT_EQ(error_pointer(doc, ""), "");
  EXPECT_EQ(error_pointer(doc, "/model/K/1=[1]"), "/model/K/1");
  EXPECT_EQ(error_pointer(doc, "/model/contacts/0/k_c=0"), "/model/contacts/0/k_c");
  EXPECT_EQ(error_pointer(doc, "/model/contacts/0/w_N=[0, 0]"), "/model/contacts/0/w_N");
  EXPECT_EQ(error_pointer(doc, "/model/M=[[1, 2], [2, 1]]"), "");  // symmetric but indefinite: caught by make_model
}

// =null removes the key: an exclusive choice is made again (Fn for Ff), a default comes back, an
// array loses the element; a key that is not there stays absent
TEST(Scenario, OverrideWithNullRemovesTheKey) {
  json doc = base_scenario();
  doc["model"]["extra"] = 1;
  doc["model"]["list"] = {1, 2, 3};
  apply_override(doc, "/model/extra=null");
  EXPECT_FALSE(doc["model"].contains("extra"));
  apply_override(doc, "/model/list/1=null");
  EXPECT_EQ(doc["model"]["list"], json({1, 3}));
  apply_override(doc, "/model/missing=null");
  EXPECT_FALSE(doc["model"].contains("missing"));
  EXPECT_THROW(apply_override(doc, "=null"), InputError);
  // the two-stop oscillator's Coulomb force given as Fn and mu instead of Ff, from the command line
  json sdof = load_json_file(FIVSIM_SOURCE_DIR "/scenarios/sdof_base_two_stop.json");
  apply_override(sdof, "/model/Fn=1");
  apply_override(sdof, "/model/mu=0.0856");
  EXPECT_THROW(parse_scenario(sdof), InputError);  // both Ff and Fn
  apply_override(sdof, "/model/Ff=null");
  EXPECT_NO_THROW(parse_scenario(sdof));
}

TEST(Scenario, OverridePathMustBeAPointer) {
  json doc = base_scenario();
  EXPECT_THROW(apply_override(doc, "model/k=1"), InputError);
  EXPECT_THROW(apply_override(doc, "/model/k"), InputError);
  apply_override(doc, "/model/k=2.5");
  EXPECT_DOUBLE_EQ(doc["model"]["k"].get<double>(), 2.5);
}

// set_at_pointer (every override): objects are created on the way, arrays grow by one at most.
// The fuzzer found the array case (tests/fuzz/regressions/identify_set_huge_index.json): an index
// of 10^10 padded an array to 10^10 nulls and ran out of memory.
TEST(Scenario, OverridesNeverPadArrays) {
  json doc = base_scenario();
  doc["list"] = {1, 2};
  set_at_pointer(doc, "/list/1", 5, "/at");
  set_at_pointer(doc, "/list/2", 6, "/at");  // its size: appends
  set_at_pointer(doc, "/list/-", 7, "/at");  // appends
  EXPECT_EQ(doc["list"], json({1, 5, 6, 7}));
  set_at_pointer(doc, "/new/deep/10386527119", 1, "/at");  // missing levels are objects, digits keys
  EXPECT_EQ(doc["new"]["deep"]["10386527119"], 1);
  set_at_pointer(doc, "/terms/0", "x1", "/at");  // ... or an array that the pointer starts at 0
  EXPECT_EQ(doc["terms"], json({"x1"}));
  const auto refused = [&](const std::string& pointer, const std::string& message) {
    try {
      set_at_pointer(doc, pointer, 1, "/at");
      ADD_FAILURE() << pointer << " was set";
    } catch (const InputError& e) {
      EXPECT_EQ(e.pointer, "/at") << pointer;
      EXPECT_NE(e.rule.find(message), std::string::npos) << pointer << ": " << e.rule;
    }
  };
  refused("/list/10386527119", "is not an index of the array (size 4");
  refused("/list/5", "is not an index of the array");
  refused("/list/01", "is not an index");
  refused("/list/x", "is not an index");
  refused("/model/k/0", "goes through a number");
  refused("model/k", "is not a JSON pointer");
  EXPECT_EQ(doc["list"].size(), 4u);
}

TEST(Scenario, DynamicFrictionLawsRunWithTheSmoothMethodOnly) {
  json doc = base_scenario();
  doc["friction"] = json::parse(R"({"law": "lugre", "sigma0": 1e5, "sigma1": 300, "sigma2": 0.05,
                                     "Fc": 0.3, "Fs": 0.4, "vs": 0.01, "beta": 2})");
  std::string msg;
  EXPECT_EQ(error_pointer(doc, "", &msg), "/integrator/method");
  EXPECT_NE(msg.find("run with method \"smooth\""), std::string::npos) << msg;
  doc["integrator"]["method"] = "smooth";
  const Scenario s = parse_scenario(doc);
  ASSERT_TRUE(s.model.contacts[0].dynamic);
  EXPECT_EQ(s.model.contacts[0].dynamic_law.kind, DynamicLawKind::lugre);
  EXPECT_EQ(s.model.contacts[0].dynamic_law.p[6], 2.0);
  EXPECT_EQ(error_pointer(doc, "/friction/vs=0"), "/friction/vs");
  EXPECT_EQ(error_pointer(doc, "/friction/sigma9=1"), "/friction/sigma9");
  // a set-valued static law has no smooth right-hand side
  EXPECT_EQ(error_pointer(base_scenario(), "/integrator/method=\"smooth\"", &msg), "/integrator/method");
  EXPECT_NE(msg.find("'stribeck_rational' is set-valued"), std::string::npos) << msg;
  // GMS elements
  doc["friction"] = json::parse(R"({"law": "gms", "Fc": 0.3, "Fs": 0.4, "vs": 0.01,
                                     "elements": [{"K": 1e4, "C": 20, "alpha": 0.4}, {"K": 3e4, "C": 20, "alpha": 0.6}]})");
  const Scenario g = parse_scenario(doc);
  EXPECT_EQ(g.model.contacts[0].dynamic_law.n_elements, 2);
  EXPECT_EQ(g.model.contacts[0].dynamic_law.element[1].K, 3e4);
  EXPECT_EQ(error_pointer(doc, "/friction/elements/1/alpha=-1"), "/friction/elements/1/alpha");
  EXPECT_EQ(error_pointer(doc, "/friction/elements=[]"), "/friction/elements");
}

TEST(Scenario, TorsionPendulumIsSeed002Equation9) {
  json doc = base_scenario();
  doc["model"] = json::parse(R"({"type": "torsion_pendulum", "J2": 2.17e-4, "c2": 0.19, "k2": 0.7,
                                  "input": {"amplitude": 0.02, "f_hz": 0.1}})");
  const Scenario s = parse_scenario(doc);
  EXPECT_EQ(s.model.M(0, 0), 2.17e-4);
  EXPECT_EQ(s.model.K(0, 0), 0.7);
  // −J2 φ̈1,m with φ̇1,m = 0.02 sin(0.2πt)
  EXPECT_DOUBLE_EQ(s.model.f_cos(0), -2.17e-4 * 0.02 * 0.2 * M_PI);
  EXPECT_EQ(s.model.contacts[0].Fn, 1.0);
  EXPECT_EQ(error_pointer(doc, "/model/input/f_hz=0"), "/model/input/f_hz");
  EXPECT_EQ(error_pointer(doc, "/model/J2=0"), "/model/J2");
}

}  // namespace
// adaptive stopping needs a section to watch and rings long enough for periodic-max_period
TEST(Scenario, AdaptiveAnalysisChecksWhatItNeeds) {
  json doc = base_scenario();
  doc["analysis"] = {{"t_transient", 1.0}, {"adaptive", true}};
  EXPECT_EQ(error_pointer(doc, ""), "");
  std::string msg;
  EXPECT_EQ(error_pointer(doc, "/analysis/poincare={\"section\":\"none\"}", &msg), "/analysis/adaptive");
  EXPECT_NE(msg.find("Poincar"), std::string::npos) << msg;
  EXPECT_EQ(error_pointer(doc, "/analysis/observers=\"statistics\""), "/analysis/adaptive");
  EXPECT_EQ(error_pointer(doc, "/analysis/points=20", &msg), "/analysis/points");
  EXPECT_NE(msg.find("32"), std::string::npos) << msg;
  EXPECT_EQ(error_pointer(doc, "/analysis/confirmations=0"), "/analysis/confirmations");
  EXPECT_EQ(error_pointer(doc, "/analysis/max_period=33"), "/analysis/max_period");
  EXPECT_EQ(error_pointer(doc, "/analysis/lyapunov={\"zero\":0}"), "/analysis/lyapunov/zero");
  // a chaos window shorter than the batch means a class may rest on
  EXPECT_EQ(error_pointer(doc, "/analysis/lyapunov={\"window\":15}"), "/analysis/lyapunov/window");
  EXPECT_EQ(error_pointer(doc, "/analysis/lyapunov={\"window\":16}"), "");
}

}  // namespace fivsim
