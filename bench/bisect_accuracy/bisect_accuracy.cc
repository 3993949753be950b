// How often each strategy names the right culprit, and at what cost in samples, on simulated
// regressions: a 64-commit linear history and a 64-commit history with merges; regression
// {3,5,10,30}% x noise CV {1,5,10}% x {normal, lognormal, bimodal}. Prints one table row per
// cell as the cell finishes and checks the default strategy's targets.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bisect/commit_graph.h"
#include "bisect/session.h"
#include "bisect/sim_measurer.h"
#include "bisect/strategy.h"

namespace kbisect {
namespace {

constexpr int kCommits = 64;

std::string fake_id(uint64_t seed, int i) {
  std::mt19937_64 random(seed * 1000003 + static_cast<uint64_t>(i));
  return fmt::format("{:016x}{:016x}{:08x}", random(), random(), random() & 0xffffffffu);
}

CommitGraph linear_history(uint64_t seed) {
  CommitGraph graph;
  for (int i = 0; i < kCommits; ++i) {
    CommitNode node;
    node.id = fake_id(seed, i);
    if (i + 1 < kCommits) node.parents = {i + 1};
    graph.nodes.push_back(node);
  }
  return graph;
}

// Branches that fork and merge, built oldest first, then listed newest first like rev-list.
CommitGraph merge_history(uint64_t seed) {
  std::mt19937 random(static_cast<uint32_t>(seed));
  std::vector<std::vector<int>> parents{{}};  // creation order; 0 is the root
  std::vector<int> tips{0};
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(random); };
  while (static_cast<int>(parents.size()) < kCommits - 1) {
    double r = std::uniform_real_distribution<double>(0, 1)(random);
    int created = static_cast<int>(parents.size());
    if (r < 0.15 && tips.size() >= 2) {
      size_t a = pick(tips.size()), b = pick(tips.size());
      if (a == b) continue;
      parents.push_back({tips[a], tips[b]});
      tips[a] = created;
      tips.erase(tips.begin() + static_cast<long>(b));
    } else if (r < 0.3) {
      parents.push_back({static_cast<int>(pick(parents.size()))});
      tips.push_back(created);
    } else {
      size_t t = pick(tips.size());
      parents.push_back({tips[t]});
      tips[t] = created;
    }
  }
  parents.push_back(tips);  // the final merge (or commit) is bad
  const int n = static_cast<int>(parents.size());
  CommitGraph graph;
  for (int newest = n - 1; newest >= 0; --newest) {
    CommitNode node;
    node.id = fake_id(seed, newest);
    for (int p : parents[newest]) node.parents.push_back(n - 1 - p);
    graph.nodes.push_back(node);
  }
  return graph;
}

struct Cell {
  bool merges;
  NoiseDistribution noise;
  double regression;
  double cv;
};

const char* noise_name(NoiseDistribution noise) {
  switch (noise) {
    case NoiseDistribution::kNormal:
      return "normal";
    case NoiseDistribution::kLognormal:
      return "lognormal";
    case NoiseDistribution::kBimodal:
      return "bimodal";
  }
  return "?";
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t end; (end = text.find(separator, start)) != std::string::npos; start = end + 1) {
    parts.push_back(text.substr(start, end - start));
  }
  parts.push_back(text.substr(start));
  return parts;
}

// --cells: alternatives separated by '|'; a row is selected when its label contains one.
std::vector<std::string> cell_filter{""};

// The row label; --cells selects the rows that contain its text ("merges bimodal", " 5%  5%").
std::string cell_label(const Cell& cell) {
  return fmt::format("{:<7} {:<9} {:>3.0f}% {:>3.0f}%", cell.merges ? "merges" : "linear",
                     noise_name(cell.noise), cell.regression * 100, cell.cv * 100);
}

bool selected(const std::string& label) {
  return std::any_of(cell_filter.begin(), cell_filter.end(), [&](const std::string& text) {
    return label.find(text) != std::string::npos;
  });
}

struct Tally {
  std::atomic<int> right{0};
  std::atomic<int> confirmed{0};  // --confirm: right culprits the confirmation confirmed
  std::atomic<long> samples{0};
  std::atomic<int> runs{0};
};

BisectSpec bench_spec;
std::optional<double> bench_confidence;     // --confidence: adaptive's and bayes' stop
int pinpoint_attempts = kPinpointAttempts;  // --pinpoint-attempts: per change, at a time
bool show_failures = false;
bool with_confirmation = false;  // --confirm: the confirmation after the search runs too
uint64_t seed_set = 0;  // 0: the seeds of the README's table; others check the same cells anew
// --drift: the host's speed moves by this fraction of the metric per sample the session takes.
double drift_per_sample = 0;
int drift_until = 0;  // --drift-until: the drift stops after this many samples (a warm-up)

void run_one(const Cell& cell, const std::string& strategy_name, int run, Tally& tally) {
  uint64_t seed = static_cast<uint64_t>(run) * 7919 + (cell.merges ? 17 : 0) + seed_set * 1000003;
  CommitGraph graph = cell.merges ? merge_history(seed) : linear_history(seed);
  std::mt19937 random(static_cast<uint32_t>(seed * 31 + 5));
  int culprit = std::uniform_int_distribution<int>(0, kCommits - 1)(random);
  std::string good = fake_id(seed, 9999);

  SimSpec sim;
  sim.seed = seed * 131 + static_cast<uint64_t>(cell.regression * 1000) +
             static_cast<uint64_t>(cell.cv * 100000);
  sim.noise = cell.noise;
  sim.cv = cell.cv;
  sim.drift_per_sample = drift_per_sample;
  sim.drift_until = drift_until;
  sim.changes = {{graph.nodes[culprit].id, 1 - cell.regression}};
  SimMeasurer measurer(graph, good, sim);

  SessionInput input;
  input.graph = &graph;
  input.good = good;
  input.metric.name = "read.iops";
  input.metric.better = Better::kHigher;
  input.confirm = with_confirmation;
  input.revert = [&](const std::string& base, const std::string& commit) {
    return measurer.revert(base, commit);
  };
  input.spec = bench_spec;
  auto strategy =
      make_strategy(strategy_name, input.spec, input.metric, bench_confidence, pinpoint_attempts);
  MemoryJournal journal;
  SessionResult result = run_session(input, *strategy, measurer, journal);
  tally.runs++;
  tally.samples += result.samples;
  // --regression 0: nothing changed, and the right answer is "no regression".
  const bool right = cell.regression == 0
                         ? result.verdict == SessionVerdict::kNoRegression
                         : result.culprit && *result.culprit == graph.nodes[culprit].id;
  if (right) {
    tally.right++;
    tally.confirmed += result.confirmed;
  } else if (show_failures) {
    int named = -1;
    for (int i = 0; i < kCommits; ++i) {
      if (result.culprit && graph.nodes[i].id == *result.culprit) named = i;
    }
    fmt::print(stderr, "{} {} {:.0f}%/{:.0f}% run {}: {} node {} instead of {} ({} samples){} {}\n",
               strategy_name, noise_name(cell.noise), cell.regression * 100, cell.cv * 100, run,
               session_verdict_name(result.verdict), named, culprit, result.samples,
               result.confirmed ? ", confirmed" : "", result.message);
  }
}

void print_header(int runs, const std::vector<std::string>& strategies) {
  fmt::print(
      "{} bisections per cell and strategy (seed set {}); accuracy % / mean samples per "
      "bisection{}{}{}\n",
      runs, seed_set,
      with_confirmation ? " (the confirmation's included) / right culprits confirmed %" : "",
      drift_per_sample != 0
          ? fmt::format("; host drift {:+g}% per 100 samples{}", drift_per_sample * 10000,
                        drift_until > 0 ? fmt::format(" for the first {}", drift_until) : "")
          : "",
      pinpoint_attempts != kPinpointAttempts
          ? fmt::format("; pinpoint with {} attempts per change", pinpoint_attempts)
          : "");
  fmt::print("{:<7} {:<9} {:>4} {:>4}", "history", "noise", "reg", "cv");
  for (const auto& name : strategies) fmt::print(" | {:>{}}", name, with_confirmation ? 20 : 13);
  // The targets are the search's: with the confirmation's samples they do not apply.
  fmt::print(" | {}\n", with_confirmation ? "" : "target (adaptive)");
  std::fflush(stdout);
}

// The default strategy's targets over the rows printed.
struct Summary {
  int applicable = 0, met = 0, accurate = 0, cheap_cells = 0;
  double ratio_sum = 0;
};

void print_row(const Cell& cell, const std::vector<std::string>& strategies,
               const std::vector<Tally>& tallies, Summary& summary) {
  fmt::print("{}", cell_label(cell));
  std::map<std::string, std::pair<double, double>> score;
  for (size_t s = 0; s < strategies.size(); ++s) {
    const Tally& t = tallies[s];
    double accuracy = 100.0 * t.right / std::max(1, t.runs.load());
    double samples = static_cast<double>(t.samples) / std::max(1, t.runs.load());
    score[strategies[s]] = {accuracy, samples};
    fmt::print(" | {:>5.1f}% {:>6.1f}", accuracy, samples);
    if (with_confirmation)
      fmt::print(" {:>5.1f}%", 100.0 * t.confirmed / std::max(1, t.right.load()));
  }
  std::string verdict = "-";
  double strength = cell.regression / cell.cv;
  double need = strength >= 2 - 1e-9 ? 99 : (strength >= 1 - 1e-9 ? 95 : 0);
  if (with_confirmation) need = 0;
  if (score.count("adaptive") && need > 0) {
    auto [accuracy, samples] = score["adaptive"];
    bool ok = accuracy >= need;
    ++summary.applicable;
    summary.accurate += ok;
    verdict = fmt::format(">={:.0f}% {}", need, ok ? "ok" : "MISS");
    if (score.count("pinpoint")) {
      auto [p_accuracy, p_samples] = score["pinpoint"];
      bool cheap = samples <= p_samples / 2 && accuracy >= p_accuracy;
      verdict += fmt::format(", {:.2f}x pinpoint {}", samples / p_samples, cheap ? "ok" : "MISS");
      summary.ratio_sum += samples / p_samples;
      summary.cheap_cells += cheap;
      ok = ok && cheap;
    }
    summary.met += ok;
  }
  fmt::print(" | {}\n", verdict);
  std::fflush(stdout);
}

void print_summary(const Summary& summary, const std::vector<std::string>& strategies) {
  if (summary.applicable == 0) return;
  fmt::print("cells with a target: {}; adaptive meets all of it in {}, the accuracy in {}",
             summary.applicable, summary.met, summary.accurate);
  if (std::count(strategies.begin(), strategies.end(), "pinpoint")) {
    fmt::print(
        ", <= 1/2 of pinpoint's samples at equal or better accuracy in {} (mean "
        "ratio {:.2f})",
        summary.cheap_cells, summary.ratio_sum / summary.applicable);
  }
  fmt::print("\n");
}

int parse_int(const char* text, const char* what, long minimum = 1) {
  char* end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < minimum) {
    fmt::print(stderr, "bisect_accuracy: {} must be an integer of at least {}, got '{}'\n", what,
               minimum, text);
    std::exit(2);
  }
  return static_cast<int>(value);
}

int main_impl(int argc, char** argv) {
  int runs = 200, threads = 2;
  std::vector<std::string> strategies = strategy_names();
  // --regression / --cv: one value instead of the grid's, in percent (the demo's 40 and 10);
  // --regression 0 changes nothing, and "no regression" is the right answer.
  std::vector<double> regressions{0.03, 0.05, 0.10, 0.30}, cvs{0.01, 0.05, 0.10};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) {
      runs = parse_int(argv[++i], "--runs");
    } else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads = parse_int(argv[++i], "--threads");
    } else if (!std::strcmp(argv[i], "--show-failures")) {
      show_failures = true;
    } else if (!std::strcmp(argv[i], "--confirm")) {
      with_confirmation = true;
    } else if (!std::strcmp(argv[i], "--max-samples") && i + 1 < argc) {
      bench_spec.max_samples = parse_int(argv[++i], "--max-samples");
    } else if (!std::strcmp(argv[i], "--strategy") && i + 1 < argc) {
      strategies = split(argv[++i], ',');
    } else if (!std::strcmp(argv[i], "--seed-set") && i + 1 < argc) {
      seed_set = static_cast<uint64_t>(parse_int(argv[++i], "--seed-set", 0));
    } else if (!std::strcmp(argv[i], "--cells") && i + 1 < argc) {
      cell_filter = split(argv[++i], '|');
    } else if (!std::strcmp(argv[i], "--confidence") && i + 1 < argc) {
      bench_confidence = std::strtod(argv[++i], nullptr);
    } else if (!std::strcmp(argv[i], "--pinpoint-attempts") && i + 1 < argc) {
      pinpoint_attempts = parse_int(argv[++i], "--pinpoint-attempts");
    } else if (!std::strcmp(argv[i], "--regression") && i + 1 < argc) {
      regressions = {parse_int(argv[++i], "--regression", 0) / 100.0};
    } else if (!std::strcmp(argv[i], "--cv") && i + 1 < argc) {
      cvs = {parse_int(argv[++i], "--cv") / 100.0};
    } else if (!std::strcmp(argv[i], "--drift") && i + 1 < argc) {
      drift_per_sample = parse_int(argv[++i], "--drift", -50) / 10000.0;  // % per 100 samples
    } else if (!std::strcmp(argv[i], "--drift-until") && i + 1 < argc) {
      drift_until = parse_int(argv[++i], "--drift-until");
    } else {
      fmt::print(
          stderr,
          "usage: bisect_accuracy [--runs N] [--threads N] [--strategy S[,S...]] [--max-samples N] "
          "[--confidence P] [--pinpoint-attempts N] [--seed-set N] [--cells TEXT] "
          "[--regression PCT] [--cv PCT] [--drift PCT] [--drift-until N] [--show-failures] "
          "[--confirm]\n");
      return 2;
    }
  }
  for (const auto& name : strategies) {
    if (std::count(strategy_names().begin(), strategy_names().end(), name) == 0) {
      fmt::print(stderr, "bisect_accuracy: unknown strategy '{}'; use one or more of {}\n", name,
                 fmt::join(strategy_names(), ","));
      return 2;
    }
  }
  std::vector<Cell> cells;
  for (bool merges : {false, true}) {
    for (auto noise :
         {NoiseDistribution::kNormal, NoiseDistribution::kLognormal, NoiseDistribution::kBimodal}) {
      for (double regression : regressions) {
        for (double cv : cvs) {
          Cell cell{merges, noise, regression, cv};
          if (selected(cell_label(cell))) cells.push_back(cell);
        }
      }
    }
  }
  std::vector<std::vector<Tally>> tallies(cells.size());
  for (auto& row : tallies) row = std::vector<Tally>(strategies.size());
  print_header(runs, strategies);
  Summary summary;
  // Rows print in grid order as their cells finish, so a long run that is stopped keeps them.
  std::vector<std::atomic<long>> jobs_left(cells.size());
  for (auto& left : jobs_left) left = static_cast<long>(strategies.size()) * runs;
  std::mutex print_mutex;
  size_t printed = 0;
  const long jobs = static_cast<long>(cells.size() * strategies.size()) * runs;
  std::atomic<long> next{0};
  auto worker = [&] {
    for (long job; (job = next++) < jobs;) {
      long run = job % runs, rest = job / runs;
      size_t s = static_cast<size_t>(rest % static_cast<long>(strategies.size()));
      size_t c = static_cast<size_t>(rest / static_cast<long>(strategies.size()));
      run_one(cells[c], strategies[s], static_cast<int>(run), tallies[c][s]);
      if (--jobs_left[c] > 0) continue;
      std::lock_guard lock(print_mutex);
      for (; printed < cells.size() && jobs_left[printed] == 0; ++printed) {
        print_row(cells[printed], strategies, tallies[printed], summary);
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (auto& thread : pool) thread.join();
  print_summary(summary, strategies);
  return 0;
}

}  // namespace
}  // namespace kbisect

int main(int argc, char** argv) {
  return kbisect::main_impl(argc, argv);
}
