#include "autotune/feature_walker.h"

#include <algorithm>
#include <cmath>

#include "lower/stmt_functor.h"
#include "support/overload.h"

namespace ttune::autotune::detail {

using te::BinOp;
using te::Expr;

namespace {

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Integer binary operation as evalInt computes it (nullopt: division by zero or a float op).
std::optional<int64_t> applyBinary(BinOp op, int64_t a, int64_t c) {
  switch (op) {
    case BinOp::Add:
      return a + c;
    case BinOp::Sub:
      return a - c;
    case BinOp::Mul:
      return a * c;
    case BinOp::FloorDiv:
      return c == 0 ? std::nullopt : std::optional<int64_t>(floorDiv(a, c));
    case BinOp::FloorMod:
      return c == 0 ? std::nullopt : std::optional<int64_t>(a - floorDiv(a, c) * c);
    case BinOp::Min:
      return std::min(a, c);
    case BinOp::Max:
      return std::max(a, c);
    case BinOp::Eq:
      return a == c;
    case BinOp::Ne:
      return a != c;
    case BinOp::Lt:
      return a < c;
    case BinOp::Le:
      return a <= c;
    case BinOp::Gt:
      return a > c;
    case BinOp::Ge:
      return a >= c;
    case BinOp::And:
      return a != 0 && c != 0;
    case BinOp::Or:
      return a != 0 || c != 0;
    default:
      return std::nullopt;  // Div, Pow: float only
  }
}

}  // namespace

std::optional<int64_t> evalInt(const Expr& e, const Env& env) {
  const te::ExprNode& n = e.node();
  if (const auto* c = std::get_if<te::IntImm>(&n.kind)) return c->value;
  if (const auto* v = std::get_if<te::VarRef>(&n.kind)) {
    const te::VarNode* p = v->var.get();
    for (auto it = env.rbegin(); it != env.rend(); ++it)
      if (it->first == p) return it->second;
    return std::nullopt;
  }
  if (const auto* b = std::get_if<te::Binary>(&n.kind)) {
    if (te::isFloat(b->a.dtype())) return std::nullopt;
    auto x = evalInt(b->a, env);
    if (!x) return std::nullopt;
    // Short-circuit logic so that a guarded data-dependent side does not spoil a decided value.
    if (b->op == BinOp::And && *x == 0) return 0;
    if (b->op == BinOp::Or && *x != 0) return 1;
    auto y = evalInt(b->b, env);
    if (!y) return std::nullopt;
    return applyBinary(b->op, *x, *y);
  }
  if (const auto* u = std::get_if<te::Unary>(&n.kind)) {
    if (te::isFloat(u->a.dtype())) return std::nullopt;
    auto x = evalInt(u->a, env);
    if (!x) return std::nullopt;
    switch (u->op) {
      case te::UnOp::Neg:
        return -*x;
      case te::UnOp::Not:
        return *x == 0;
      case te::UnOp::Abs:
        return *x < 0 ? -*x : *x;
      default:
        return std::nullopt;
    }
  }
  if (const auto* s = std::get_if<te::Select>(&n.kind)) {
    auto c = evalInt(s->cond, env);
    if (!c) return std::nullopt;
    return evalInt(*c ? s->t : s->f, env);
  }
  if (const auto* c = std::get_if<te::Cast>(&n.kind)) {
    if (te::isFloat(c->a.dtype()) || te::isFloat(e.dtype())) return std::nullopt;
    auto x = evalInt(c->a, env);
    if (x && e.dtype() == te::DType::Bool) return *x != 0;
    if (x && e.dtype() == te::DType::Int32) return static_cast<int64_t>(static_cast<int32_t>(*x));
    return x;
  }
  return std::nullopt;
}

void collectVars(const Expr& e, std::vector<const te::VarNode*>& out) {
  std::visit(Overload{
                 [](const te::IntImm&) {},
                 [](const te::FloatImm&) {},
                 [&](const te::VarRef& v) {
                   if (std::find(out.begin(), out.end(), v.var.get()) == out.end()) out.push_back(v.var.get());
                 },
                 [&](const te::Binary& b) {
                   collectVars(b.a, out);
                   collectVars(b.b, out);
                 },
                 [&](const te::Unary& u) { collectVars(u.a, out); },
                 [&](const te::Select& s) {
                   collectVars(s.cond, out);
                   collectVars(s.t, out);
                   collectVars(s.f, out);
                 },
                 [&](const te::Cast& c) { collectVars(c.a, out); },
                 [&](const te::TensorRead& r) {
                   for (const Expr& i : r.indices) collectVars(i, out);
                 },
                 [&](const te::BufferLoad& l) { collectVars(l.index, out); },
                 [&](const te::Reduce& r) {
                   collectVars(r.source, out);
                   if (r.cond.defined()) collectVars(r.cond, out);
                 },
             },
             e.node().kind);
}

namespace {

// evalInt compiled to postfix code over variable slots. The walker evaluates the same few extent
// and guard expressions at up to `budget` points per estimate; interpreting the tree each time
// dominated feature extraction. Same results as evalInt, short-circuits included.
class IntProgram {
 public:
  // `slot(var)`: the variable's slot, or -1 (then reading it fails, as an unbound variable does).
  template <class SlotOf>
  IntProgram(const Expr& e, const SlotOf& slot) {
    emit(e, slot);
  }

  // vals/bound: per slot, the value and whether it is bound.
  std::optional<int64_t> run(const int64_t* vals, const char* bound) const {
    int64_t local[kLocalStack];
    std::vector<int64_t> deep;  // only for expressions deeper than the local stack
    if (depth_max_ > kLocalStack) deep.resize(static_cast<size_t>(depth_max_));
    int64_t* stack = deep.empty() ? local : deep.data();
    int sp = 0;
    for (size_t pc = 0; pc < code_.size(); ++pc) {
      const Ins& in = code_[pc];
      switch (in.kind) {
        case Ins::kImm:
          stack[sp++] = in.imm;
          break;
        case Ins::kVar:
          if (!bound[in.arg]) return std::nullopt;
          stack[sp++] = vals[in.arg];
          break;
        case Ins::kFail:
          return std::nullopt;
        case Ins::kBinary: {
          auto r = applyBinary(static_cast<BinOp>(in.arg), stack[sp - 2], stack[sp - 1]);
          if (!r) return std::nullopt;
          stack[--sp - 1] = *r;
          break;
        }
        case Ins::kNeg:
          stack[sp - 1] = -stack[sp - 1];
          break;
        case Ins::kNot:
          stack[sp - 1] = stack[sp - 1] == 0;
          break;
        case Ins::kAbs:
          stack[sp - 1] = stack[sp - 1] < 0 ? -stack[sp - 1] : stack[sp - 1];
          break;
        case Ins::kToBool:
          stack[sp - 1] = stack[sp - 1] != 0;
          break;
        case Ins::kToInt32:
          stack[sp - 1] = static_cast<int64_t>(static_cast<int32_t>(stack[sp - 1]));
          break;
        case Ins::kJumpIfZero:
          if (stack[--sp] == 0) pc = static_cast<size_t>(in.arg) - 1;
          break;
        case Ins::kJump:
          pc = static_cast<size_t>(in.arg) - 1;
          break;
        case Ins::kAndShort:  // false: the result is 0, skip the right side
          if (stack[sp - 1] == 0)
            pc = static_cast<size_t>(in.arg) - 1;
          else
            --sp;
          break;
        case Ins::kOrShort:  // true: the result is 1, skip the right side
          if (stack[sp - 1] != 0) {
            stack[sp - 1] = 1;
            pc = static_cast<size_t>(in.arg) - 1;
          } else {
            --sp;
          }
          break;
      }
    }
    return sp == 1 ? std::optional<int64_t>(stack[0]) : std::nullopt;
  }

 private:
  static constexpr int kLocalStack = 64;
  struct Ins {
    enum Kind : uint8_t {
      kImm,
      kVar,
      kFail,
      kBinary,
      kNeg,
      kNot,
      kAbs,
      kToBool,
      kToInt32,
      kJumpIfZero,
      kJump,
      kAndShort,
      kOrShort
    } kind;
    int arg = 0;
    int64_t imm = 0;
  };

  void add(Ins::Kind k, int arg = 0, int64_t imm = 0, int depth_change = 0) {
    code_.push_back({k, arg, imm});
    depth_ += depth_change;
    depth_max_ = std::max(depth_max_, depth_);
  }

  template <class SlotOf>
  void emit(const Expr& e, const SlotOf& slot) {
    const te::ExprNode& n = e.node();
    if (const auto* c = std::get_if<te::IntImm>(&n.kind)) return add(Ins::kImm, 0, c->value, 1);
    if (const auto* v = std::get_if<te::VarRef>(&n.kind)) {
      int k = slot(v->var.get());
      return k < 0 ? add(Ins::kFail, 0, 0, 1) : add(Ins::kVar, k, 0, 1);
    }
    if (const auto* b = std::get_if<te::Binary>(&n.kind)) {
      if (te::isFloat(b->a.dtype())) return add(Ins::kFail, 0, 0, 1);
      emit(b->a, slot);
      if (b->op == BinOp::And || b->op == BinOp::Or) {
        size_t at = code_.size();
        add(b->op == BinOp::And ? Ins::kAndShort : Ins::kOrShort, 0, 0, -1);
        emit(b->b, slot);
        add(Ins::kToBool);
        code_[at].arg = static_cast<int>(code_.size());
        return;
      }
      emit(b->b, slot);
      return add(Ins::kBinary, static_cast<int>(b->op), 0, -1);
    }
    if (const auto* u = std::get_if<te::Unary>(&n.kind)) {
      if (te::isFloat(u->a.dtype())) return add(Ins::kFail, 0, 0, 1);
      emit(u->a, slot);
      switch (u->op) {
        case te::UnOp::Neg:
          return add(Ins::kNeg);
        case te::UnOp::Not:
          return add(Ins::kNot);
        case te::UnOp::Abs:
          return add(Ins::kAbs);
        default:
          return add(Ins::kFail);
      }
    }
    if (const auto* s = std::get_if<te::Select>(&n.kind)) {
      emit(s->cond, slot);
      size_t jz = code_.size();
      add(Ins::kJumpIfZero, 0, 0, -1);
      emit(s->t, slot);
      size_t j = code_.size();
      add(Ins::kJump, 0, 0, -1);  // the false side pushes its own value
      code_[jz].arg = static_cast<int>(code_.size());
      emit(s->f, slot);
      code_[j].arg = static_cast<int>(code_.size());
      return;
    }
    if (const auto* c = std::get_if<te::Cast>(&n.kind)) {
      if (te::isFloat(c->a.dtype()) || te::isFloat(e.dtype())) return add(Ins::kFail, 0, 0, 1);
      emit(c->a, slot);
      if (e.dtype() == te::DType::Bool)
        add(Ins::kToBool);
      else if (e.dtype() == te::DType::Int32)
        add(Ins::kToInt32);
      return;
    }
    add(Ins::kFail, 0, 0, 1);  // float constants, loads, reads: not evaluable
  }

  std::vector<Ins> code_;
  int depth_ = 0, depth_max_ = 0;
};

// What is in scope at a point of the walk: a loop (its variable ranges over [0, extent)), a let
// (its variable has one value) or an if (its condition holds, or fails in the else branch).
struct Frame {
  enum Kind { kLoop, kLet, kIf } kind;
  const te::VarNode* var;                // null for an if
  const Expr* expr;                      // extent, value, or condition
  int loop;                              // index into loops for a loop
  bool negate;                           // else branch of an if
  std::vector<const te::VarNode*> vars;  // variables of expr
};

// Weighted sums over an enumeration of the iterations of enclosing loops.
struct Moments {
  double weight = 0;  // total weight (iterations)
  double sum = 0;     // sum of weight * value
  double below = 0;   // weight where value < threshold
  bool ok = true;
};

class Walker : public lower::StmtVisitor {
 public:
  explicit Walker(int budget) : budget_(std::max(budget, 2)) {}

  WalkResult run(const lower::Stmt& s) {
    visit(s);
    return std::move(out_);
  }

 private:
  void push(Frame::Kind kind, const te::VarNode* var, const Expr& e, int loop, bool negate = false) {
    Frame f{kind, var, &e, loop, negate, {}};
    collectVars(e, f.vars);
    frames_.push_back(std::move(f));
  }

  void visitAllocate(const lower::Allocate& a) override {
    out_.allocs.push_back({a.buffer.get(), execs()});
    alloc_stack_.push_back(static_cast<int>(out_.allocs.size()) - 1);
    visit(a.body);
    alloc_stack_.pop_back();
  }
  void visitLet(const lower::LetStmt& l) override {
    push(Frame::kLet, l.var.get(), l.value, -1);
    visit(l.body);
    frames_.pop_back();
  }
  // Features describe the schedule's own loops; the cost model lowers without the prefetch
  // pass, and a hint would not change what they count.
  void visitPrefetch(const lower::Prefetch&) override {}

  double execs() const {
    double p = guard_prob_;
    for (int l : loop_stack_) p *= out_.loops[l].trips;
    return p;
  }

  void visitFor(const lower::For& f) override {
    LoopInfo info;
    info.var = f.var.get();
    info.kind = f.kind;
    info.max_extent = f.max_extent;
    if (int64_t c; te::isConstInt(f.extent, &c)) {
      info.trips = static_cast<double>(std::max<int64_t>(c, 0));
      info.short_frac = c < f.max_extent ? 1 : 0;
    } else {
      Moments m = moments(f.extent, f.max_extent);
      if (!m.ok) {
        info.unknown = true;
        info.trips = static_cast<double>(std::max<int64_t>(f.max_extent, 0));
      } else if (m.weight > 0) {
        info.trips = m.sum / m.weight;
        info.short_frac = m.below / m.weight;
      }
    }
    out_.loops.push_back(info);
    int li = static_cast<int>(out_.loops.size()) - 1;
    push(Frame::kLoop, f.var.get(), f.extent, li);
    loop_stack_.push_back(li);
    visit(f.body);
    loop_stack_.pop_back();
    frames_.pop_back();
  }

  void visitStore(const lower::Store& st) override {
    StoreInfo s;
    s.store = &st;
    s.loops = loop_stack_;
    s.guard_prob = guard_prob_;
    s.guard_ifs = guard_ifs_;
    for (auto it = alloc_stack_.rbegin(); it != alloc_stack_.rend(); ++it)
      if (out_.allocs[*it].buffer == st.buffer.get()) {
        s.alloc = *it;
        break;
      }
    out_.stores.push_back(std::move(s));
  }

  void visitIf(const lower::IfThenElse& i) override {
    // Fraction of iterations passing the condition; 1 when it depends on data.
    Moments m = moments(i.cond, 1);
    double pass = (m.ok && m.weight > 0) ? 1.0 - m.below / m.weight : 1.0;
    double saved = guard_prob_;
    ++guard_ifs_;
    guard_prob_ = saved * pass;
    if (m.ok) push(Frame::kIf, nullptr, i.cond, -1, false);
    visit(i.then_case);
    if (m.ok) frames_.pop_back();
    if (i.else_case) {
      guard_prob_ = saved * (m.ok ? 1.0 - pass : 1.0);
      if (m.ok) push(Frame::kIf, nullptr, i.cond, -1, true);
      visit(i.else_case);
      if (m.ok) frames_.pop_back();
    }
    guard_prob_ = saved;
    --guard_ifs_;
  }

  // Mean of e over the iterations reaching this point: enumerates the enclosing frames e depends
  // on, closed under (a) the variables of their own extents / values, (b) enclosing loops whose
  // extent depends on them (their trip counts weigh the mean) and (c) enclosing ifs that mention
  // them (iterations failing the guard do not reach here). `threshold` counts values below it.
  Moments moments(const Expr& e, int64_t threshold) {
    Moments m;
    std::vector<const te::VarNode*> vars;
    collectVars(e, vars);
    std::vector<char> in(frames_.size(), 0);
    auto mentions = [&](const Frame& f) {
      for (const te::VarNode* v : f.vars)
        if (std::find(vars.begin(), vars.end(), v) != vars.end()) return true;
      return false;
    };
    auto addVars = [&](const Frame& f) {
      for (const te::VarNode* v : f.vars)
        if (std::find(vars.begin(), vars.end(), v) == vars.end()) vars.push_back(v);
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t k = 0; k < vars.size(); ++k) {
        int fi = findFrame(vars[k]);
        if (fi < 0) {
          m.ok = false;
          return m;
        }
        if (!in[fi]) {
          in[fi] = 1;
          addVars(frames_[fi]);
          changed = true;
        }
      }
      for (size_t fi = 0; fi < frames_.size(); ++fi) {
        if (in[fi] || frames_[fi].kind == Frame::kLet || !mentions(frames_[fi])) continue;
        in[fi] = 1;
        addVars(frames_[fi]);
        if (frames_[fi].var) vars.push_back(frames_[fi].var);
        changed = true;
      }
    }
    std::vector<int> deps;
    for (size_t fi = 0; fi < frames_.size(); ++fi)
      if (in[fi]) deps.push_back(static_cast<int>(fi));
    // Samples per loop: loops that fit the remaining budget are enumerated fully (smallest first),
    // the others share what is left evenly.
    std::vector<int64_t> samples(deps.size(), 1);
    std::vector<size_t> order;
    for (size_t d = 0; d < deps.size(); ++d)
      if (frames_[deps[d]].kind == Frame::kLoop) order.push_back(d);
    auto maxExt = [&](size_t d) { return std::max<int64_t>(out_.loops[frames_[deps[d]].loop].max_extent, 1); };
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return maxExt(a) < maxExt(b); });
    double left = budget_;
    for (size_t r = 0; r < order.size(); ++r) {
      double fair = std::pow(left, 1.0 / static_cast<double>(order.size() - r));
      int64_t ext = maxExt(order[r]);
      samples[order[r]] = static_cast<double>(ext) <= fair ? ext : std::max<int64_t>(2, static_cast<int64_t>(fair));
      left = std::max(1.0, left / static_cast<double>(samples[order[r]]));
    }
    // Variables get slots; e and the frames' expressions are compiled once for all points.
    std::vector<const te::VarNode*> slot_vars;
    auto slotOf = [&](const te::VarNode* v) {
      auto it = std::find(slot_vars.begin(), slot_vars.end(), v);
      return it == slot_vars.end() ? -1 : static_cast<int>(it - slot_vars.begin());
    };
    for (int fi : deps)
      if (frames_[fi].var && slotOf(frames_[fi].var) < 0) slot_vars.push_back(frames_[fi].var);
    Enumeration en{IntProgram(e, slotOf),
                   {},
                   {},
                   std::vector<int64_t>(slot_vars.size(), 0),
                   std::vector<char>(slot_vars.size(), 0),
                   threshold};
    for (int fi : deps) {
      en.frame_code.emplace_back(*frames_[fi].expr, slotOf);
      en.frame_slot.push_back(frames_[fi].var ? slotOf(frames_[fi].var) : -1);
    }
    enumerate(en, deps, samples, 0, 1.0, m);
    return m;
  }

  struct Enumeration {
    IntProgram value;                    // the expression averaged
    std::vector<IntProgram> frame_code;  // per dependency: extent, let value or condition
    std::vector<int> frame_slot;         // per dependency: slot of its variable (-1 for an if)
    std::vector<int64_t> vals;
    std::vector<char> bound;
    int64_t threshold;
  };

  void enumerate(Enumeration& en, const std::vector<int>& deps, const std::vector<int64_t>& samples, size_t i, double w,
                 Moments& m) {
    if (!m.ok) return;
    if (i == deps.size()) {
      auto v = en.value.run(en.vals.data(), en.bound.data());
      if (!v) {
        m.ok = false;
        return;
      }
      m.weight += w;
      m.sum += w * static_cast<double>(std::max<int64_t>(*v, 0));
      if (*v < en.threshold) m.below += w;
      return;
    }
    const Frame& f = frames_[deps[i]];
    auto v = en.frame_code[i].run(en.vals.data(), en.bound.data());
    if (!v) {
      m.ok = false;
      return;
    }
    if (f.kind == Frame::kIf) {
      if ((*v != 0) != f.negate) enumerate(en, deps, samples, i + 1, w, m);
      return;
    }
    const int slot = en.frame_slot[i];
    auto at = [&](int64_t value, double weight) {
      int64_t saved_val = en.vals[slot];  // a shadowed variable gets its outer value back
      char saved_bound = en.bound[slot];
      en.vals[slot] = value;
      en.bound[slot] = 1;
      enumerate(en, deps, samples, i + 1, weight, m);
      en.vals[slot] = saved_val;
      en.bound[slot] = saved_bound;
    };
    if (f.kind == Frame::kLet) return at(*v, w);
    int64_t ext = *v, per = samples[i];
    if (ext <= per) {
      for (int64_t t = 0; t < ext; ++t) at(t, w);
      return;
    }
    // Stratified: per-1 points for [0, ext-1), each standing for its share, then the last one.
    int64_t n = per - 1;
    double share = static_cast<double>(ext - 1) / static_cast<double>(n);
    for (int64_t s = 0; s < n; ++s) at(static_cast<int64_t>((static_cast<double>(s) + 0.5) * share), w * share);
    at(ext - 1, w);
  }

  int findFrame(const te::VarNode* v) const {
    for (int i = static_cast<int>(frames_.size()) - 1; i >= 0; --i)
      if (frames_[i].var == v) return i;
    return -1;
  }

  int budget_;
  WalkResult out_;
  std::vector<Frame> frames_;
  std::vector<int> loop_stack_, alloc_stack_;
  double guard_prob_ = 1;
  int guard_ifs_ = 0;
};

}  // namespace

WalkResult walkLoopIR(const lower::Stmt& body, int budget) { return Walker(budget).run(body); }

}  // namespace ttune::autotune::detail
