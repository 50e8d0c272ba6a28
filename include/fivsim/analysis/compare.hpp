// fivsim/analysis/compare.hpp — the measures `fivsim compare` sets beside a reference: RMS of every
// series (seed 000 Tables 2–3), transition matching (missed, spurious, timing; the seed's ×), the
// RMS of the slider displacement at stick-slip transitions (seed 001 Tables 1–2) and the dominant
// frequencies of a displacement (seed 000 Fig. 13). Host code.
#pragma once

#include <string>
#include <vector>

#include "fivsim/model/event_log.hpp"
#include "fivsim/analysis/statistics.hpp"
#include "fivsim/integrate/method.hpp"

namespace fivsim {

// what one run leaves for comparison, gathered sample by sample after t_from
class RunRecord {
 public:
  RunRecord(int n_dof, int n_contacts, double t_from);
  void add(const SeriesPoint& p);

  // in the order of series_names(): q0.., u0.., lamN0.., lamT0..
  const std::vector<RunningStats>& stats() const { return stats_; }
  const std::vector<double>& first_displacement() const { return q0_; }  // q0 after t_from, every sample

 private:
  double t_from_;
  std::vector<RunningStats> stats_;
  std::vector<double> q0_;
  std::vector<double> values_;
};

// the outcome of pairing a run's transitions with the reference's
struct TransitionMatch {
  long reference = 0;  // reference events considered
  long matched = 0;
  long missed = 0;          // reference events without a partner of the same kind and contact
  long spurious = 0;        // run events without a partner
  double worst_timing = 0;  // largest |t_run − t_ref| over matched pairs
  double mean_timing = 0;
};

// pairs events of the same contact and kind in time order when they are at most `window` apart
// (window ≤ 0: a quarter of the shortest spacing between the reference's transitions of that
// contact and kind); only events at t ≥ t_from count
TransitionMatch match_transitions(const std::vector<Event>& reference, const std::vector<Event>& run, double window,
                                  double t_from);

// a time stepper resolves a slip reversal (slip− → slip+ through γ_T = 0 without sticking) as a
// stick of a step or two; such stick phases, shorter than `shortest_stick`, between opposite slips
// become one slip_reversal at their start, so that they pair with the reference's reversal
std::vector<Event> merge_brief_sticks(const std::vector<Event>& events, double shortest_stick);

// per contact: the RMS of w_Tᵀq at its stick→slip and slip→stick events at t ≥ t_from (the slider
// displacement at the transitions of seed 001 Table 1); NaN where a contact has none
std::vector<double> transition_displacement_rms(const std::vector<Event>& events, const ModelDescription& d,
                                                double t_from);

struct SpectralPeak {
  double frequency = 0;  // Hz
  double amplitude = 0;  // of the one-sided spectrum, in the series' unit
};

// the `count` largest local maxima of the amplitude spectrum of x (mean removed, Hann window,
// FFTW), frequencies refined by a parabola through the log amplitudes; strongest first
std::vector<SpectralPeak> dominant_frequencies(const std::vector<double>& x, double dt, int count);

}  // namespace fivsim
