// JSON for records, reports and --json output: nlohmann's ordered_json keeps fields in the order
// they were written, so printed records read naturally and round-trip byte for byte.
#pragma once

#include <nlohmann/json.hpp>

namespace ttune {
using Json = nlohmann::ordered_json;
}
