#include "store/sql_db.h"

namespace ttune::store::sql {

std::optional<int64_t> Db::queryInt(const std::string& sql) {
  Stmt st(*this, sql);
  if (!st.step()) return std::nullopt;
  return st.getOptInt(0);
}

std::optional<std::string> Db::queryText(const std::string& sql) {
  Stmt st(*this, sql);
  if (!st.step() || st.isNull(0)) return std::nullopt;
  return st.getText(0);
}

Stmt& Stmt::bindAll(const std::vector<Value>& vs) {
  for (size_t i = 0; i < vs.size(); ++i) bind(static_cast<int>(i + 1), vs[i]);
  return *this;
}

void Stmt::run() {
  while (step()) {
  }
  reset();
}

std::optional<double> Stmt::getOptDouble(int col) const {
  if (isNull(col)) return std::nullopt;
  return getDouble(col);
}

std::optional<int64_t> Stmt::getOptInt(int col) const {
  if (isNull(col)) return std::nullopt;
  return getInt(col);
}

}  // namespace ttune::store::sql
