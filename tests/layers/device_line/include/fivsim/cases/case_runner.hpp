// tests/layers/device_line/ — a per-case header that includes nlohmann/json, which device code must
// never see.
#pragma once

#include <nlohmann/json.hpp>
