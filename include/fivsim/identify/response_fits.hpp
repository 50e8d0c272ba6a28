// fivsim/identify/response_fits.hpp — the identifications that fit a simulated response to the
// record rather than an equation to its derivatives: a grey-box search of a scenario's numbers by
// output error (nelder_mead, genetic, levenberg_marquardt: identify/greybox.hpp; seed 002 §3.3) and
// the PINN pair for the friction torque (identify/pinn_identification.hpp; seed 002 §4.3).
// identify() (identify/identification.hpp) runs them for those methods.
#pragma once

#include "fivsim/identify/identification.hpp"

namespace fivsim {

// greybox with an output-error optimizer: the scenario's numbers at the parameters' paths, their
// intervals and the response (IdentificationResult::greybox)
IdentificationResult identify_by_search(const IdentifyConfig& c, const Record& record);

// pinn: the networks' torque and response (IdentificationResult::pinn_result), and the torque's
// error against the record's friction column where it has one
IdentificationResult identify_by_pinn(const IdentifyConfig& c, const Record& record);

}  // namespace fivsim
