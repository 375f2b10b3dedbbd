// Expected<T>: the result of an operation that can legitimately fail (replaying a schedule on a
// kernel it does not fit, parsing a record). It holds either a value or a Reason saying, in one
// sentence, why there is no value. Use it where failure is part of normal operation; use
// ttune::Error (error.h) for user-facing failures and TT_ASSERT for broken internal invariants.
#pragma once

#include <string>
#include <utility>
#include <variant>

#include "support/assert.h"

namespace ttune {

struct Reason {
  std::string message;
};

// Builds the failure side of an Expected; converts to any Expected<T>.
struct Unexpected {
  Reason reason;
  explicit Unexpected(std::string message) : reason{std::move(message)} {}
  explicit Unexpected(Reason r) : reason(std::move(r)) {}
};

template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}          // NOLINT: implicit by design
  Expected(Unexpected u) : v_(std::move(u.reason)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    TT_ASSERT(ok(), "Expected::value() on a failure: " + std::get<1>(v_).message);
    return std::get<0>(v_);
  }
  const T& value() const& {
    TT_ASSERT(ok(), "Expected::value() on a failure: " + std::get<1>(v_).message);
    return std::get<0>(v_);
  }
  T&& value() && {
    TT_ASSERT(ok(), "Expected::value() on a failure: " + std::get<1>(v_).message);
    return std::get<0>(std::move(v_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Reason& reason() const {
    TT_ASSERT(!ok(), "Expected::reason() on a success");
    return std::get<1>(v_);
  }
  const std::string& error() const { return reason().message; }

 private:
  std::variant<T, Reason> v_;
};

// For operations that produce nothing but can fail.
struct Ok {};
using Status = Expected<Ok>;
inline Status okStatus() { return Ok{}; }

}  // namespace ttune

// Propagates a failure: TT_TRY(auto x, computeSomething()); binds x on success.
#define TT_CONCAT_INNER(a, b) a##b
#define TT_CONCAT(a, b) TT_CONCAT_INNER(a, b)
#define TT_TRY_IMPL(tmp, decl, expr)                       \
  auto tmp = (expr);                                       \
  if (!tmp.ok()) return ::ttune::Unexpected(tmp.reason()); \
  decl = std::move(tmp).value()
#define TT_TRY(decl, expr) TT_TRY_IMPL(TT_CONCAT(tt_try_, __LINE__), decl, expr)
#define TT_TRY_STATUS(expr)                                                \
  do {                                                                     \
    auto tt_status_ = (expr);                                              \
    if (!tt_status_.ok()) return ::ttune::Unexpected(tt_status_.reason()); \
  } while (0)
