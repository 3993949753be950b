// kdio [--output-format=normal|json|json+] [--output=FILE] JOBFILE... | fio-style --name=J ...
// stdout carries only the report; diagnostics go to stderr.
#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "kdio/jobfile.h"
#include "report.h"
#include "run_error.h"
#include "runner.h"

namespace kdio {
namespace {

constexpr char kUsage[] =
    "usage: kdio [--output-format=normal|json|json+] [--output=FILE] JOBFILE...\n"
    "       kdio [--output-format=...] [--output=FILE] --name=JOB --rw=... [--OPTION=VALUE]...\n";

struct Args {
  OutputFormat format = OutputFormat::kNormal;
  std::string output;
  std::vector<std::string> rest;
};

OutputFormat parse_format(const std::string& text) {
  if (text == "normal") return OutputFormat::kNormal;
  if (text == "json") return OutputFormat::kJson;
  if (text == "json+") return OutputFormat::kJsonPlus;
  throw JobError(
      fmt::format("<command line>: unknown --output-format '{}'; use normal, json or "
                  "json+",
                  text));
}

// Takes kdio's own flags out of argv; everything else is job files or fio-style job options.
Args parse_args(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value_of = [&](const std::string& flag) -> std::string {
      if (arg.size() > flag.size() && arg.compare(0, flag.size() + 1, flag + "=") == 0) {
        return arg.substr(flag.size() + 1);
      }
      if (i + 1 >= argc) throw JobError(fmt::format("<command line>: {} needs a value", flag));
      return argv[++i];
    };
    if (arg == "--output-format" || arg.starts_with("--output-format=")) {
      args.format = parse_format(value_of("--output-format"));
    } else if (arg == "--output" || arg.starts_with("--output=")) {
      args.output = value_of("--output");
      if (args.output.empty()) throw JobError("<command line>: --output needs a file name");
    } else {
      args.rest.push_back(arg);
    }
  }
  return args;
}

JobFile parse_jobs(const std::vector<std::string>& rest) {
  bool command_line = false;
  for (const std::string& arg : rest) command_line = command_line || arg.starts_with("--");
  if (command_line) return parse_command_line_jobs(rest);
  return parse_job_files(rest, process_environment());
}

// The report's file, opened before the jobs run (as fio does): a path that cannot be written
// must not cost the results of a whole run. None: stdout.
std::optional<std::ofstream> open_report(const Args& args) {
  if (args.output.empty()) return std::nullopt;
  std::optional<std::ofstream> out(std::in_place, args.output);
  if (!*out) run_fail("cannot open {} for the report: {}", args.output, std::strerror(errno));
  return out;
}

void write_report(const Args& args, std::optional<std::ofstream>& out, const std::string& text) {
  if (!out) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  *out << text;
  out->close();
  if (!*out) run_fail("cannot write the report to {}: {}", args.output, std::strerror(errno));
}

int run(int argc, char** argv) {
  const auto started = std::chrono::steady_clock::now();
  Args args = parse_args(argc, argv);
  if (args.rest.empty() || args.rest[0] == "--help" || args.rest[0] == "-h") {
    std::fputs(kUsage, stderr);
    return args.rest.empty() ? 1 : 0;
  }
  if (args.rest[0] == "--version") {
    std::puts(kVersion);
    return 0;
  }
  JobFile job_file = parse_jobs(args.rest);
  for (const std::string& warning : job_file.warnings) std::cerr << warning << "\n";
  std::optional<std::ofstream> report_file = open_report(args);
  install_signal_handlers();
  RunOutcome outcome = run_jobs(job_file);
  Report report;
  report.jobs = &job_file.jobs;
  report.entries = report_entries(job_file.jobs, outcome.results);
  report.interrupted = outcome.signal != 0;
  for (const JobResult& r : outcome.results) report.interrupted |= r.interrupted;
  report.timestamp_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  auto elapsed = std::chrono::steady_clock::now() - started;
  report.elapsed_s = static_cast<uint64_t>(
      (std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count() + 999) / 1000);
  write_report(args, report_file,
               args.format == OutputFormat::kNormal
                   ? render_normal(report)
                   : render_json(report, args.format == OutputFormat::kJsonPlus));
  int status = 0;
  for (const JobResult& r : outcome.results) {
    if (r.error != 0) {
      std::cerr << "kdio: " << r.error_message << "\n";
      status = 1;
    }
  }
  if (report.interrupted) {
    std::cerr << "kdio: interrupted; the report covers the time until the stop\n";
    return outcome.signal ? 128 + outcome.signal : 130;
  }
  return status;
}

}  // namespace
}  // namespace kdio

int main(int argc, char** argv) {
  try {
    return kdio::run(argc, argv);
  } catch (const kdio::JobError& e) {
    std::cerr << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "kdio: " << e.what() << "\n";
    return 1;
  }
}
