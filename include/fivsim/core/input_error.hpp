// fivsim/core/input_error.hpp — the error every layer raises for bad input: a message
// "<JSON pointer>: <rule>" and the pointer itself, so that the command line exits 2 naming it and
// the Python module raises fivsim.InputError with .pointer (docs/DESIGN.md §4). Below io so that
// the parts io reads for (identify's records, for one) can name the pointer without parsing JSON.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace fivsim {

// `text` on one line: control characters (a newline or an escape sequence in a scenario's name,
// say) written as \n, \t, \r or \xNN, so that a message stays one line and cannot move a terminal
inline std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c != 0x7f) {
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

struct InputError : std::runtime_error {
  InputError(const std::string& pointer, const std::string& rule)
      : std::runtime_error(printable((pointer.empty() ? std::string("/") : pointer) + ": " + rule)),
        pointer(pointer),
        rule(rule) {}
  // an error that no pointer names (a refused shard of a merge): the message alone
  static InputError message(const std::string& text) {
    InputError e("", text);
    static_cast<std::runtime_error&>(e) = std::runtime_error(printable(text));
    return e;
  }
  // an error about a whole file (unreadable, malformed JSON): "<path>: <rule>"
  static InputError in_file(const std::string& path, const std::string& rule) {
    InputError e = message(path + ": " + rule);
    e.rule = rule;
    return e;
  }
  std::string pointer;
  std::string rule;
};

// "/a/b" + "k~x" → "/a/b/k~0x" (RFC 6901 escaping)
inline std::string pointer_join(const std::string& parent, const std::string& key) {
  std::string out = parent + "/";
  for (char ch : key) {
    if (ch == '~')
      out += "~0";
    else if (ch == '/')
      out += "~1";
    else
      out += ch;
  }
  return out;
}
inline std::string pointer_join(const std::string& parent, std::size_t index) {
  return parent + "/" + std::to_string(index);
}

}  // namespace fivsim
