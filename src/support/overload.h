// Overload{lambdas...}: builds one visitor from several lambdas for std::visit.
#pragma once

namespace ttune {
template <class... Fs>
struct Overload : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overload(Fs...) -> Overload<Fs...>;
}  // namespace ttune
