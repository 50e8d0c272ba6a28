// fivsim/io/json_reader.hpp — strict reading of JSON objects with errors that name a JSON pointer.
//
// A JsonObject wraps one object of a document together with its pointer. Every getter records
// the key it was asked for; finish() then rejects any key nobody asked for, listing the allowed
// ones. Numbers must be finite and satisfy the stated rule. Every failure is an InputError whose
// message is "<pointer>: <rule>" (docs/DESIGN.md §4).
#pragma once

#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "fivsim/core/input_error.hpp"
#include "fivsim/core/input_file.hpp"

namespace fivsim {

using json = nlohmann::json;

enum class NumberRule { any, positive, non_negative };

class JsonObject {
 public:
  // throws InputError when j is not an object
  JsonObject(const json& j, std::string pointer);

  const std::string& pointer() const { return pointer_; }
  std::string pointer_of(const std::string& key) const { return pointer_join(pointer_, key); }
  bool has(const std::string& key);

  double number(const std::string& key, NumberRule rule = NumberRule::any);
  double number_or(const std::string& key, double fallback, NumberRule rule = NumberRule::any);
  long integer(const std::string& key, long min_value);
  long integer_or(const std::string& key, long fallback, long min_value);
  bool boolean_or(const std::string& key, bool fallback);
  std::string string(const std::string& key);
  std::string string_or(const std::string& key, const std::string& fallback);
  // one of `choices`; the message lists them
  std::string choice(const std::string& key, const std::vector<std::string>& choices);
  std::string choice_or(const std::string& key, const std::string& fallback, const std::vector<std::string>& choices);
  // array of numbers; expected_size < 0 accepts any non-empty length
  std::vector<double> numbers(const std::string& key, long expected_size, NumberRule rule = NumberRule::any,
                              const std::string& size_why = "");
  // a number or an array of `size` numbers, broadcast to `size` entries
  std::vector<double> number_or_numbers(const std::string& key, long size, NumberRule rule);
  // rows × cols nested array; rows < 0 takes the row count from the data (square if cols < 0)
  Eigen::MatrixXd matrix(const std::string& key, long rows, long cols);
  JsonObject object(const std::string& key);
  const json& array(const std::string& key);
  const json& raw(const std::string& key);

  // rejects keys that no getter asked for
  void finish() const;

 private:
  const json& required(const std::string& key);
  const json* j_;
  std::string pointer_;
  std::set<std::string> asked_;
};

// the largest JSON file fivsim reads (a sweep's zip lists of 10^6 values are a few tens of MB)
inline constexpr std::uintmax_t kMaxJsonFileBytes = std::uintmax_t{256} << 20;

// the deepest nesting of arrays and objects a document may have
inline constexpr int kMaxJsonDepth = 64;

// a JSON text read strictly: every key once per object, every number within a double's range, at
// most kMaxJsonDepth levels of nesting, each an InputError naming the pointer where it happens;
// text that is not JSON is an InputError naming `source` (a file's path, or what the text is)
json parse_json_text(std::string_view text, const std::string& source);

// the largest magnitude a number of a scenario may have: no physical quantity comes near, and the
// statistics of a run (sums of squares over up to 2e9 steps) stay finite below it
inline constexpr double kMaxInputMagnitude = 1e100;

// a single number at `pointer`, finite, within ±kMaxInputMagnitude and obeying `rule`
double read_number(const json& v, const std::string& pointer, NumberRule rule);

// doc at `pointer` = value, for overrides (--set, an identification's "set"): missing levels on the
// way are created (an array when the pointer's next token is "0" or "-", else an object), an array
// takes an index up to its size (its size or "-" appends); an index past
// the end, a step through a number, string or boolean, or a malformed pointer is an InputError
// naming `at` (where the pointer was given) — never an array padded to a huge size
void set_at_pointer(json& doc, const std::string& pointer, json value, const std::string& at);

}  // namespace fivsim
