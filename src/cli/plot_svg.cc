#include "cli/plot_svg.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "support/strings.h"

namespace ttune::cli {

namespace {

const char* kColors[] = {"#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b"};

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else
      o += c;
  }
  return o;
}

}  // namespace

std::string speedupPlotSvg(const std::vector<PlotPanel>& panels, const std::string& title) {
  const int cols = 4, pw = 260, ph = 200, ml = 44, mr = 10, mt = 26, mb = 34, top = 60;
  int rows = static_cast<int>((panels.size() + cols - 1) / cols);
  int width = cols * pw, height = top + rows * ph + 10;
  std::map<std::string, const char*> color;
  for (const PlotPanel& p : panels)
    for (const PlotPoint& q : p.points)
      if (!color.count(q.label)) color[q.label] = kColors[color.size() % (sizeof kColors / sizeof *kColors)];
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  o << "<text x=\"10\" y=\"20\" font-size=\"14\">" << esc(title) << "</text>\n";
  // Legend.
  int lx = 10;
  o << "<line x1=\"" << lx << "\" y1=\"40\" x2=\"" << lx + 20 << "\" y2=\"40\" stroke=\"#1f77b4\" stroke-width=\"2\"/>";
  o << "<text x=\"" << lx + 25 << "\" y=\"44\">tuning from scratch (checkpoints)</text>\n";
  lx += 230;
  o << "<line x1=\"" << lx << "\" y1=\"40\" x2=\"" << lx + 20 << "\" y2=\"40\" stroke=\"#333\" stroke-width=\"2\" "
    << "stroke-dasharray=\"5,3\"/><text x=\"" << lx + 25 << "\" y=\"44\">transfer, then tune</text>\n";
  lx += 150;
  for (const auto& [label, c] : color) {
    o << "<circle cx=\"" << lx + 5 << "\" cy=\"40\" r=\"4\" fill=\"" << c << "\"/><text x=\"" << lx + 14
      << "\" y=\"44\">transfer: " << esc(label) << "</text>\n";
    lx += 40 + 7 * static_cast<int>(label.size()) + 60;
  }
  for (size_t i = 0; i < panels.size(); ++i) {
    const PlotPanel& p = panels[i];
    int x0 = static_cast<int>(i % cols) * pw, y0 = top + static_cast<int>(i / cols) * ph;
    double tmin = 1e30, tmax = 0, smax = 1.0;
    auto see = [&](double t, double sp) {
      if (t > 0) tmin = std::min(tmin, t), tmax = std::max(tmax, t);
      smax = std::max(smax, sp);
    };
    for (const auto& [t, sp] : p.curve) see(t, sp);
    for (const auto& [t, sp] : p.continued) see(t, sp);
    for (const PlotPoint& q : p.points) see(q.time_s, q.speedup);
    if (tmax <= 0) continue;
    double lt0 = std::log10(std::max(1.0, tmin * 0.8)), lt1 = std::log10(tmax * 1.25);
    if (lt1 - lt0 < 0.5) lt1 = lt0 + 0.5;
    double s0 = 1.0, s1 = std::ceil(smax * 10 + 1) / 10;
    int px0 = x0 + ml, px1 = x0 + pw - mr, py0 = y0 + ph - mb, py1 = y0 + mt;
    auto X = [&](double t) { return px0 + (std::log10(std::max(t, 1e-9)) - lt0) / (lt1 - lt0) * (px1 - px0); };
    auto Y = [&](double sp) { return py0 - (std::clamp(sp, s0, s1) - s0) / (s1 - s0) * (py0 - py1); };
    o << "<text x=\"" << px0 << "\" y=\"" << y0 + 16 << "\" font-size=\"12\">" << esc(p.title) << "</text>\n";
    o << "<rect x=\"" << px0 << "\" y=\"" << py1 << "\" width=\"" << px1 - px0 << "\" height=\"" << py0 - py1
      << "\" fill=\"none\" stroke=\"#999\"/>\n";
    for (double d = std::ceil(lt0); d <= lt1; d += 1) {
      double x = X(std::pow(10, d));
      o << "<line x1=\"" << x << "\" y1=\"" << py0 << "\" x2=\"" << x << "\" y2=\"" << py1 << "\" stroke=\"#eee\"/>";
      o << "<text x=\"" << x - 10 << "\" y=\"" << py0 + 13 << "\">"
        << (d >= 3 ? strFormat("%.0fk", std::pow(10, d - 3)) : strFormat("%.0f", std::pow(10, d))) << "</text>\n";
    }
    o << "<text x=\"" << px0 + (px1 - px0) / 2 - 30 << "\" y=\"" << py0 + 26 << "\">search time (s)</text>\n";
    for (double sp = s0; sp <= s1 + 1e-9; sp += (s1 - s0) > 1.5 ? 0.5 : 0.1) {
      double y = Y(sp);
      o << "<line x1=\"" << px0 << "\" y1=\"" << y << "\" x2=\"" << px1 << "\" y2=\"" << y << "\" stroke=\"#eee\"/>";
      o << "<text x=\"" << x0 + 8 << "\" y=\"" << y + 4 << "\">" << strFormat("%.1fx", sp) << "</text>\n";
    }
    if (!p.curve.empty()) {
      o << "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"";
      for (const auto& [t, sp] : p.curve) o << X(t) << "," << Y(sp) << " ";
      o << "\"/>\n";
    }
    if (!p.continued.empty()) {
      o << "<polyline fill=\"none\" stroke=\"#333\" stroke-width=\"2\" stroke-dasharray=\"5,3\" points=\"";
      for (const auto& [t, sp] : p.continued) o << X(t) << "," << Y(sp) << " ";
      o << "\"/>\n";
    }
    for (const PlotPoint& q : p.points)
      o << "<circle cx=\"" << X(q.time_s) << "\" cy=\"" << Y(q.speedup) << "\" r=\"4\" fill=\"" << color[q.label]
        << "\"><title>" << esc(q.label) << strFormat(": %.2fx after %.0f s", q.speedup, q.time_s)
        << "</title></circle>\n";
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace ttune::cli
