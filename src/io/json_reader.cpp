// src/io/json_reader.cpp — strict JSON reading with pointer-named errors (docs/DESIGN.md §4).
#include "fivsim/io/json_reader.hpp"

#include <cmath>
#include <sstream>
#include <vector>

namespace fivsim {

namespace {

std::string type_name(const json& v);

}  // namespace

void set_at_pointer(json& doc, const std::string& pointer, json value, const std::string& at) {
  json::json_pointer ptr;
  try {
    ptr = json::json_pointer(pointer);
  } catch (const json::exception&) {
    throw InputError(at, "'" + pointer + "' is not a JSON pointer");
  }
  // the unescaped reference tokens, root first
  std::vector<std::string> tokens;
  for (json::json_pointer p = ptr; !p.empty(); p = p.parent_pointer()) tokens.insert(tokens.begin(), p.back());
  json* cur = &doc;
  for (const std::string& t : tokens) {
    // a missing level is an array when the pointer starts it ("0" or "-"), else an object
    if (cur->is_null()) *cur = t == "0" || t == "-" ? json::array() : json::object();
    if (cur->is_object()) {
      cur = &(*cur)[t];
    } else if (cur->is_array()) {
      const bool digits = !t.empty() && t.size() < 10 && t.find_first_not_of("0123456789") == std::string::npos &&
                          (t.size() == 1 || t[0] != '0');
      const std::size_t index = t == "-" ? cur->size() : digits ? std::stoul(t) : cur->size() + 1;
      if (index > cur->size())
        throw InputError(at, "'" + t + "' in '" + pointer + "' is not an index of the array (size " +
                                 std::to_string(cur->size()) + "; its size or '-' appends)");
      if (index == cur->size()) cur->push_back(nullptr);
      cur = &(*cur)[index];
    } else {
      throw InputError(at, "'" + pointer + "' goes through " + type_name(*cur) + ", which has no members");
    }
  }
  *cur = std::move(value);
}

namespace {

std::string type_name(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

std::string format_number(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

}  // namespace

double read_number(const json& v, const std::string& pointer, NumberRule rule) {
  if (!v.is_number()) throw InputError(pointer, "must be a number, got " + type_name(v));
  const double x = v.get<double>();
  if (!std::isfinite(x)) throw InputError(pointer, "must be finite, got " + format_number(x));
  if (rule == NumberRule::positive && !(x > 0))
    throw InputError(pointer, "must be > 0, got " + format_number(x));
  if (rule == NumberRule::non_negative && !(x >= 0))
    throw InputError(pointer, "must be >= 0, got " + format_number(x));
  return x;
}

JsonObject::JsonObject(const json& j, std::string pointer) : j_(&j), pointer_(std::move(pointer)) {
  if (!j.is_object()) throw InputError(pointer_, "must be an object, got " + type_name(j));
}

bool JsonObject::has(const std::string& key) {
  asked_.insert(key);
  return j_->contains(key);
}

const json& JsonObject::required(const std::string& key) {
  asked_.insert(key);
  auto it = j_->find(key);
  if (it == j_->end()) throw InputError(pointer_of(key), "is required");
  return *it;
}

double JsonObject::number(const std::string& key, NumberRule rule) {
  return read_number(required(key), pointer_of(key), rule);
}

double JsonObject::number_or(const std::string& key, double fallback, NumberRule rule) {
  return has(key) ? number(key, rule) : fallback;
}

long JsonObject::integer(const std::string& key, long min_value) {
  const json& v = required(key);
  if (!v.is_number_integer() && !(v.is_number_float() && std::floor(v.get<double>()) == v.get<double>()))
    throw InputError(pointer_of(key), "must be an integer, got " + type_name(v));
  const double x = v.get<double>();
  if (!(x >= static_cast<double>(min_value)) || x > 2.0e9)
    throw InputError(pointer_of(key), "must be an integer in [" + std::to_string(min_value) +
                                          ", 2e9], got " + format_number(x));
  return static_cast<long>(x);
}

long JsonObject::integer_or(const std::string& key, long fallback, long min_value) {
  return has(key) ? integer(key, min_value) : fallback;
}

bool JsonObject::boolean_or(const std::string& key, bool fallback) {
  if (!has(key)) return fallback;
  const json& v = (*j_)[key];
  if (!v.is_boolean()) throw InputError(pointer_of(key), "must be true or false, got " + type_name(v));
  return v.get<bool>();
}

std::string JsonObject::string(const std::string& key) {
  const json& v = required(key);
  if (!v.is_string()) throw InputError(pointer_of(key), "must be a string, got " + type_name(v));
  return v.get<std::string>();
}

std::string JsonObject::string_or(const std::string& key, const std::string& fallback) {
  return has(key) ? string(key) : fallback;
}

std::string JsonObject::choice(const std::string& key, const std::vector<std::string>& choices) {
  const std::string s = string(key);
  for (const auto& c : choices)
    if (c == s) return s;
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
  throw InputError(pointer_of(key), "unknown value '" + s + "' (one of: " + list + ")");
}

std::string JsonObject::choice_or(const std::string& key, const std::string& fallback,
                                  const std::vector<std::string>& choices) {
  return has(key) ? choice(key, choices) : fallback;
}

std::vector<double> JsonObject::numbers(const std::string& key, long expected_size, NumberRule rule,
                                        const std::string& size_why) {
  const json& v = required(key);
  const std::string ptr = pointer_of(key);
  if (!v.is_array()) throw InputError(ptr, "must be an array of numbers, got " + type_name(v));
  if (expected_size >= 0 && static_cast<long>(v.size()) != expected_size)
    throw InputError(ptr, "must have " + std::to_string(expected_size) + " entries" +
                              (size_why.empty() ? "" : " (" + size_why + ")") + ", got " +
                              std::to_string(v.size()));
  if (expected_size < 0 && v.empty()) throw InputError(ptr, "must not be empty");
  std::vector<double> out;
  for (std::size_t i = 0; i < v.size(); ++i) out.push_back(read_number(v[i], pointer_join(ptr, i), rule));
  return out;
}

std::vector<double> JsonObject::number_or_numbers(const std::string& key, long size, NumberRule rule) {
  const json& v = required(key);
  if (v.is_array()) return numbers(key, size, rule, "one per slider");
  return std::vector<double>(static_cast<std::size_t>(size), number(key, rule));
}

Eigen::MatrixXd JsonObject::matrix(const std::string& key, long rows, long cols) {
  const json& v = required(key);
  const std::string ptr = pointer_of(key);
  if (!v.is_array() || v.empty()) throw InputError(ptr, "must be a non-empty array of rows");
  if (rows < 0) rows = static_cast<long>(v.size());
  if (cols < 0) cols = rows;
  if (static_cast<long>(v.size()) != rows)
    throw InputError(ptr, "must have " + std::to_string(rows) + " rows, got " + std::to_string(v.size()));
  Eigen::MatrixXd M(rows, cols);
  for (long i = 0; i < rows; ++i) {
    const json& row = v[static_cast<std::size_t>(i)];
    const std::string rptr = pointer_join(ptr, static_cast<std::size_t>(i));
    if (!row.is_array()) throw InputError(rptr, "must be an array of numbers, got " + type_name(row));
    if (static_cast<long>(row.size()) != cols)
      throw InputError(rptr, "must have " + std::to_string(cols) + " entries, got " + std::to_string(row.size()));
    for (long j = 0; j < cols; ++j)
      M(i, j) = read_number(row[static_cast<std::size_t>(j)], pointer_join(rptr, static_cast<std::size_t>(j)),
                            NumberRule::any);
  }
  return M;
}

JsonObject JsonObject::object(const std::string& key) { return JsonObject(required(key), pointer_of(key)); }

const json& JsonObject::array(const std::string& key) {
  const json& v = required(key);
  if (!v.is_array()) throw InputError(pointer_of(key), "must be an array, got " + type_name(v));
  return v;
}

const json& JsonObject::raw(const std::string& key) { return required(key); }

void JsonObject::finish() const {
  for (auto it = j_->begin(); it != j_->end(); ++it) {
    if (asked_.count(it.key())) continue;
    std::string allowed;
    for (const auto& k : asked_) allowed += (allowed.empty() ? "" : ", ") + k;
    throw InputError(pointer_of(it.key()), "unknown key (allowed here: " + allowed + ")");
  }
}

}  // namespace fivsim
