// src/io/json_reader.cpp — strict JSON reading with pointer-named errors (docs/DESIGN.md §4).
#include "fivsim/io/json_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>
#include <vector>

namespace fivsim {

namespace {

std::string type_name(const json& v);

}  // namespace

namespace {

// builds the document as nlohmann's own parser would, refusing what it lets through: a key given
// twice (the last would win), a number past a double's range (thrown as out_of_range, which no
// reader expects) and nesting deep enough to exhaust the stack of any recursive walk
class StrictBuilder : public nlohmann::json_sax<json> {
 public:
  json root;
  // the failure, when one ended the parse: a pointer and its rule, or text that is not JSON
  bool failed = false, malformed = false;
  std::string failed_pointer, failed_rule;

  bool null() override { return put(nullptr) != nullptr; }
  bool boolean(bool b) override { return put(b) != nullptr; }
  bool number_integer(number_integer_t v) override { return put(v) != nullptr; }
  bool number_unsigned(number_unsigned_t v) override { return put(v) != nullptr; }
  bool number_float(number_float_t v, const string_t&) override { return put(v) != nullptr; }
  bool string(string_t& s) override { return put(std::move(s)) != nullptr; }
  bool binary(binary_t& b) override { return put(json::binary_t(std::move(b))) != nullptr; }
  bool start_object(std::size_t) override { return open(json::object()); }
  bool start_array(std::size_t) override { return open(json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    if (stack_.back()->contains(k))
      return fail(pointer_join(pointer(), k), "is given twice in the same object (each key once)");
    key_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string& token, const nlohmann::detail::exception& ex) override {
    if (ex.id == 406)
      return fail(next_pointer(), "the number " + token + " is beyond a double's range (about 1.8e308)");
    std::string msg = ex.what();
    const auto pos = msg.find("] ");
    if (pos != std::string::npos) msg = msg.substr(pos + 2);
    malformed = true;
    return fail("", "malformed JSON: " + msg);
  }

 private:
  bool fail(std::string pointer, std::string rule) {
    failed = true;
    failed_pointer = std::move(pointer);
    failed_rule = std::move(rule);
    return false;
  }
  // the pointer of the innermost open container
  std::string pointer() const {
    std::string p;
    for (const std::string& t : tokens_) p += t;
    return p;
  }
  // where the next value will go
  std::string next_pointer() const {
    if (stack_.empty()) return "";
    return stack_.back()->is_object() ? pointer_join(pointer(), key_) : pointer_join(pointer(), stack_.back()->size());
  }
  json* put(json v) {
    if (stack_.empty()) {
      root = std::move(v);
      return &root;
    }
    json& top = *stack_.back();
    if (top.is_object()) return &(top[key_] = std::move(v));
    top.push_back(std::move(v));
    return &top.back();
  }
  bool open(json container) {
    if (static_cast<int>(stack_.size()) >= kMaxJsonDepth)
      return fail(next_pointer(),
                  "nests deeper than " + std::to_string(kMaxJsonDepth) + " levels of arrays and objects");
    const std::string token = stack_.empty() ? "" : next_pointer().substr(pointer().size());
    json* at = put(std::move(container));
    stack_.push_back(at);
    tokens_.push_back(token);
    return true;
  }
  bool close() {
    stack_.pop_back();
    tokens_.pop_back();
    return true;
  }
  std::vector<json*> stack_;
  std::vector<std::string> tokens_;  // each open container's last pointer token ("/key", "/3")
  std::string key_;
};

}  // namespace

json parse_json_text(std::string_view text, const std::string& source) {
  StrictBuilder builder;
  const bool ok = json::sax_parse(text.begin(), text.end(), &builder, json::input_format_t::json, true);
  if (ok && !builder.failed) return std::move(builder.root);
  if (!builder.failed) throw InputError::in_file(source, "malformed JSON");
  if (builder.malformed) throw InputError::in_file(source, builder.failed_rule);
  throw InputError(builder.failed_pointer, builder.failed_rule);
}

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

// edits (insert, delete, substitute, swap two neighbours) between a and b, case ignored
std::size_t edit_distance(const std::string& a, const std::string& b) {
  const auto low = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = low(a[i - 1]) == low(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && low(a[i - 1]) == low(b[j - 2]) && low(a[i - 2]) == low(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

// whether `given` reads as a misspelling of `meant`: the same but for case; or, for longer keys,
// one edit (two from 8 letters). Short keys are left alone: mu_d is not a misspelled mu_s
bool misspelling_of(const std::string& given, const std::string& meant) {
  if (given == meant || given.size() > 64 || meant.size() > 64) return false;
  const std::size_t len = std::max(given.size(), meant.size());
  const std::size_t allowed = len >= 8 ? 2 : len >= 5 ? 1 : 0;
  return edit_distance(given, meant) <= allowed;
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
  if (std::abs(x) > kMaxInputMagnitude)
    throw InputError(pointer, "must be within ±1e100 (beyond, the squares a run's statistics sum overflow), got " +
                                  format_number(x));
  if (rule == NumberRule::positive && !(x > 0)) throw InputError(pointer, "must be > 0, got " + format_number(x));
  if (rule == NumberRule::non_negative && !(x >= 0)) throw InputError(pointer, "must be >= 0, got " + format_number(x));
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
  if (it == j_->end()) {
    // a key nobody asked for that reads as this one misspelled is the cause to report
    for (auto given = j_->begin(); given != j_->end(); ++given)
      if (!asked_.count(given.key()) && misspelling_of(given.key(), key))
        throw InputError(pointer_of(given.key()),
                         "unknown key: did you mean '" + key + "'? (" + pointer_of(key) + " is required)");
    throw InputError(pointer_of(key), "is required");
  }
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
    throw InputError(pointer_of(key),
                     "must be an integer in [" + std::to_string(min_value) + ", 2e9], got " + format_number(x));
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
                              (size_why.empty() ? "" : " (" + size_why + ")") + ", got " + std::to_string(v.size()));
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
    std::string allowed, nearest;
    std::size_t best = 0;
    for (const auto& k : asked_) {
      allowed += (allowed.empty() ? "" : ", ") + k;
      const std::size_t d = edit_distance(it.key().substr(0, 64), k);
      if (misspelling_of(it.key(), k) && (nearest.empty() || d < best)) {
        nearest = k;
        best = d;
      }
    }
    throw InputError(pointer_of(it.key()), "unknown key (" +
                                               (nearest.empty() ? "" : "did you mean '" + nearest + "'? ") +
                                               "allowed here: " + allowed + ")");
  }
}

}  // namespace fivsim
