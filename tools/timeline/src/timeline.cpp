// A stand-in for the timeline renderer: one header line naming the
// clients, then the trace one event a line. Replaced by the real renderer.
#include "zksim/timeline/timeline.h"

#include "zksim/trace.h"

#include <fmt/format.h>

namespace zksim::timeline {

std::string text(const scenarios::Scenario& s, const scenarios::ScenarioRun& run) {
  std::string out;
  for (int c = 0; c < s.workload.clients; ++c) out += fmt::format("{}c{}", c ? "\t" : "", c);
  out += "\n";
  for (const TraceEvent& e : run.result.trace) out += Trace::render(e) + "\n";
  return out;
}

std::string html(const scenarios::Scenario& s, const scenarios::ScenarioRun& run) {
  std::string body;
  for (char ch : text(s, run)) {
    if (ch == '<') body += "&lt;";
    else if (ch == '>') body += "&gt;";
    else if (ch == '&') body += "&amp;";
    else body += ch;
  }
  return fmt::format("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>zksim timeline</title></head>\n"
                     "<body><pre>{}</pre></body></html>\n", body);
}

}  // namespace zksim::timeline
