// attn example: list, show or check the tutorials' worked examples.
#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <sys/stat.h>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/viz.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/example/example_commands.hpp"
#include "experiments/worked_examples.hpp"
#include "cli/option_values.hpp"
#include "write/output_file.hpp"
#include "runtime/did_you_mean.hpp"

namespace attn::cli {

// The worked examples (experiments/worked_examples.hpp).
using namespace attn::worked_examples;

namespace {

constexpr double check_tolerance = 1e-5;  // the bound for --check

// Largest difference |x − y| / max(1, |y|): absolute for values up to 1, relative beyond (a
// float32 result of 512.01 cannot be closer than ~3e-5 absolute); infinite when the shapes differ.
// Printed as "max diff", with that definition in --check's help.
double max_difference(const Tensor& a, const Tensor& b) {
    if (!(a.shape() == b.shape())) return INFINITY;
    double worst = 0.0;
    for (std::size_t s = 0; s < a.slices(); ++s) {
        const MatrixView x = a.slice(s), y = b.slice(s);
        for (std::size_t i = 0; i < x.rows; ++i)
            for (std::size_t j = 0; j < x.cols; ++j) {
                const double d = std::fabs(double(x(i, j)) - double(y(i, j))) / std::max(1.0, std::fabs(double(y(i, j))));
                worst = max_keeping_nan(worst, d);  // a NaN difference wins
            }
    }
    return worst;
}

std::string shape(const Tensor& t) { return t.shape().dims_text(); }

Matrix slice_matrix(const Tensor& t, std::size_t s) { return t.rank() <= 2 ? Tensor(t).to_matrix() : t.slice_matrix(s); }

void list_examples() {
    std::printf("Worked examples (attn example NAME to show one, --check to verify all):\n");
    for (const Example& e : examples()) std::printf("  %-15s %s\n", e.name.c_str(), e.summary.c_str());
}

// Returns true when every compared matrix is within tolerance.
bool check_example(const Example& e, bool verbose) {
    bool ok = true;
    for (const ExampleCase& c : e.cases) {
        const auto got = run_case(c, e.name);
        double worst = 0.0;
        std::size_t values = 0;
        std::string bad;
        for (const auto& [name, file] : c.expect) {
            const Tensor want = example_tensor(e.name, file);
            const double d = max_difference(got.at(name), want);
            values += want.shape().numel();
            if (!(d <= check_tolerance)) bad += " " + name + (std::isinf(d) ? " (shape " + shape(got.at(name)) + " vs " + shape(want) + ")" : "");
            worst = max_keeping_nan(worst, d);
        }
        ok = ok && bad.empty();
        if (verbose || !bad.empty())
            std::printf("%-4s %s / %s: %zu values, max diff %.2g%s%s\n", bad.empty() ? "ok" : "FAIL", e.name.c_str(),
                        c.label.c_str(), values, worst, bad.empty() ? "" : ", over 1e-05:", bad.c_str());
    }
    return ok;
}

// The files of the example to write into dir (created if missing): a file already there is
// left alone when identical and replaced only with force. `same`: how many were already
// there, identical.
struct ExportPlan {
    std::vector<io::detail::PendingFile> files;
    std::size_t same = 0;
    std::vector<std::string> made;  // the folders above dir that were created for it, outermost first
};
ExportPlan plan_export(const Example& e, const std::string& dir, bool force) {
    std::vector<io::detail::PendingFile> files;
    std::size_t same = 0;
    for (const std::string& name : example_file_names(e.name)) {
        const std::string path = dir + "/" + name, bytes = example_file(e.name, name);
        struct stat st {};
        if (::stat(path.c_str(), &st) == 0) {
            if (S_ISDIR(st.st_mode)) throw RuntimeFailure("cannot export to " + path + ": it is a directory");
            // Only a file of the same size can be identical; it is read to compare.
            std::string old(std::size_t(st.st_size) == bytes.size() ? bytes.size() : 0, '\0');
            std::ifstream in(path, std::ios::binary);
            const bool read = in && in.read(old.data(), std::streamsize(old.size())) && in.gcount() == std::streamsize(old.size());
            if (std::size_t(st.st_size) == bytes.size() && read && old == bytes) {
                ++same;
                continue;
            }
            if (!force) throw RuntimeFailure(path + " exists and differs from the example's file (--force replaces it)");
        }
        files.push_back({path, bytes, true});
    }
    // Like mkdir -p for the folders above dir; write_files creates dir itself (and removes it
    // again when writing fails), the caller removes these then.
    std::vector<std::string> made;
    for (std::size_t slash = dir.find('/', 1); slash != std::string::npos; slash = dir.find('/', slash + 1)) {
        const std::string up = dir.substr(0, slash);
        if (::mkdir(up.c_str(), 0777) == 0) made.push_back(up);
        else if (errno != EEXIST)
            throw RuntimeFailure("cannot create directory " + up + ": " + std::strerror(errno));
    }
    return {std::move(files), same, std::move(made)};
}

// What --export prints: the files, and the commands that run on them there.
std::string export_text(const Example& e, const std::string& dir, std::size_t same, const CommandOutput& args) {
    const std::vector<std::string> names = example_file_names(e.name);
    std::string out = e.name + ": " + std::to_string(names.size()) + " files in " + dir;
    if (same) out += " (" + std::to_string(same) + " already there, identical)";
    out += ":\n ";
    for (const std::string& n : names) out += " " + n;
    out += "\nRun inside " + dir + " (attn example " + e.name + " shows what each prints and PyTorch's values):\n";
    for (const ExampleCase& c : e.cases) out += "$ " + case_command(c, e.name, args) + "\n";
    return out;
}

std::vector<std::string> example_labels(const Example& e) {
    std::vector<std::string> labels;
    if (e.labels.empty()) return labels;
    std::string line;
    for (char ch : example_file(e.name, e.labels)) {
        if (ch == '\n') labels.push_back(line), line.clear();
        else line += ch;
    }
    if (!line.empty()) labels.push_back(line);
    return labels;
}

std::string format_diff(double d) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2g", d);
    return buf;
}

// Text for people: as it is in pretty output; in csv and tsv every line a "# " comment (as
// attn's csv titles its matrices), so that the values are the only other lines.
std::string narration(const std::string& text, io::Format format) {
    if (format == io::Format::pretty) return text;
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = text.find('\n', start);
        const std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        out += (line.empty() ? "" : "# " + line) + "\n";
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return out;
}

void show_example(const Example& e, const io::OutputOptions& out, const CommandOutput& args) {
    const std::vector<std::string> labels = example_labels(e);
    const bool json = out.format == io::Format::json;
    std::string doc;
    auto say = [&](const std::string& text) { doc += narration(text, out.format); };
    if (json) {
        doc += "{\n  \"example\": " + io::json_quote(e.name) + ",\n  \"summary\": " + io::json_quote(e.summary) +
               ",\n  \"source\": " + io::json_quote(e.source) + ",\n  \"cases\": [";
    } else {
        say(e.name + " — " + e.summary + "\nsource: " + e.source + "\nfiles: attn example " + e.name +
            " --export DIR writes them into DIR; the commands below run there\n");
    }
    bool first_case = true;
    for (const ExampleCase& c : e.cases) {
        const auto got = run_case(c, e.name);
        const std::string command = case_command(c, e.name, args);
        std::vector<io::Item> items;
        for (const auto& [name, file] : c.inputs) items.push_back(io::tensor_item(name, got.at(name).view()));
        for (const auto& [name, file] : c.expect) {
            const Tensor& t = got.at(name);
            io::Item it = io::tensor_item(name, t.view());
            if (labels.size() == t.rows()) it.row_labels = labels;
            if (labels.size() == t.cols() && name != "context" && name != "output") it.col_labels = labels;
            items.push_back(std::move(it));
        }
        std::string values = io::render(items, out);
        std::vector<std::pair<std::string, double>> diffs;
        for (const auto& [name, file] : c.expect) diffs.emplace_back(file, max_difference(got.at(name), example_tensor(e.name, file)));

        if (json) {
            // {"label", "commands": [one per line], "results": {render's json}, "pytorch": [...]}
            while (!values.empty() && values.back() == '\n') values.pop_back();
            std::string commands;
            for (std::size_t start = 0; start <= command.size();) {
                std::size_t end = command.find("\n$ ", start);
                if (end == std::string::npos) end = command.size();
                commands += (commands.empty() ? "" : ", ") + io::json_quote(command.substr(start, end - start));
                start = end + 3;
            }
            std::string pytorch;
            for (std::size_t k = 0; k < c.expect.size(); ++k)
                pytorch += std::string(k ? ",\n" : "\n") + "        {\"name\": " + io::json_quote(c.expect[k].first) +
                           ", \"file\": " + io::json_quote(diffs[k].first) + ", \"max_diff\": " +
                           (std::isfinite(diffs[k].second) ? format_diff(diffs[k].second) : "null") +
                           ", \"ok\": " + (diffs[k].second <= check_tolerance ? "true" : "false") + "}";
            doc += std::string(first_case ? "\n" : ",\n") + "    {\n      \"label\": " + io::json_quote(c.label) +
                   ",\n      \"commands\": [" + commands + "],\n      \"results\": " + values +
                   ",\n      \"pytorch\": [" + pytorch + "\n      ]\n    }";
            first_case = false;
            continue;
        }
        say("\n== " + c.label + "\n$ " + command + "\n\n");
        doc += values + "\n";
        if (c.heatmap && out.format == io::Format::pretty) {
            const Tensor& w = got.at("weights");
            for (std::size_t s = 0; s < w.slices(); ++s) {
                const Matrix m = slice_matrix(w, s);
                // Masked cells are those whose logits the masks (causal, window, lengths) set to -inf.
                const Matrix scaled = slice_matrix(got.at("scaled"), s);
                const viz::CellMask masked = [&scaled](std::size_t i, std::size_t j) { return std::isinf(scaled(i, j)) && scaled(i, j) < 0; };
                const std::string head = w.slices() > 1 ? " (head " + std::to_string(s) + ")" : "";
                doc += "weights" + head + " as a heatmap:\n" +
                       viz::heatmap_text(m, labels, labels, viz::want_color(stdout_is_terminal()), masked,
                                         out.line_width) +
                       "\n";
            }
        }
        for (std::size_t k = 0; k < c.expect.size(); ++k)
            say(c.expect[k].first + " vs PyTorch 1.13 (" + diffs[k].first + "): max diff " + format_diff(diffs[k].second) +
                (diffs[k].second <= check_tolerance ? " (ok)" : " (DIFFERS)") + "\n");
    }
    if (json) doc += "\n  ],\n  \"tutorial\": " + io::json_quote("The tutorial " + e.tutorial) + "\n}\n";
    else say("\nThe tutorial " + e.tutorial + "\n");
    io::detail::write_stdout(doc);
}

}  // namespace

int cmd_example(int argc, char** argv) {
    cxxopts::Options options("attn example",
                             "The worked examples of the tutorials, with their inputs and PyTorch's results.\n"
                             "No NAME: list them. NAME: show inputs, every intermediate and the tutorial's values.");
    options.custom_help("[--check] [OPTIONS]");
    options.add_options()
        ("check", "Run the examples (all, or NAME) and compare with the stored PyTorch results; exit 1 on "
                  "any difference beyond 1e-5 (\"max diff\": |x - y| / max(1, |y|), absolute for values up to 1 "
                  "and relative beyond)")
        ("export", "Write the example's files (inputs, labels, PyTorch's results) into DIR, created if missing, "
                   "and print the commands that run on them there", cxxopts::value<std::string>(), "DIR")
        ("force", "With --export: replace files in DIR that differ from the example's")
        ("format", "How values print: pretty, csv, tsv, json (default pretty); the commands shown then print "
                   "the same. pretty tables wider than $COLUMNS (else the terminal, else 80) print in column blocks",
         cxxopts::value<std::string>(), "FMT")
        ("digits", digits_help, cxxopts::value<std::string>(), "N")
        ("name", "Example to show", cxxopts::value<std::vector<std::string>>());
    options.parse_positional({"name"});
    options.positional_help("[NAME]");
    add_exec_options(options);
    auto parsed = parse_or_help(options, argc, argv);
    if (!parsed) return exit_ok;
    const auto& r = *parsed;

    const Example* chosen = nullptr;
    if (r.count("name")) {
        const auto& names = r["name"].as<std::vector<std::string>>();
        if (names.size() > 1)
            throw UsageError("one example NAME at a time: got the positional arguments '" + names[0] + "' and '" + names[1] + "'");
        chosen = find_example(names[0]);
        if (!chosen) {
            std::vector<std::string> known;
            for (const auto& e : worked_examples::examples()) known.push_back(e.name);
            throw UsageError("no example named '" + names[0] + "'" + did_you_mean(names[0], known) +
                             " (attn example lists them)");
        }
    }
    if (r["force"].as<bool>() && !r.count("export")) throw UsageError("--force goes with --export DIR");
    if (r.count("export") && r["check"].as<bool>()) throw UsageError("--check and --export: one at a time");
    if (!chosen && r.count("export"))
        throw UsageError("--export writes one example: give its NAME (attn example lists them)");
    // The list and the check print fixed text: a --format or --digits there would be ignored.
    if ((r["check"].as<bool>() || !chosen) && (r.count("format") || r.count("digits")))
        throw UsageError(std::string(r.count("format") ? "--format" : "--digits") +
                         " applies to showing or exporting an example (attn example NAME), not to " +
                         (r["check"].as<bool>() ? "--check" : "the list"));
    if (r["check"].as<bool>()) {
        bool ok = true;
        std::size_t n = 0;
        for (const Example& e : examples())
            if (!chosen || chosen == &e) ok = check_example(e, true) && ok, ++n;
        std::printf("%s: %zu example%s checked against PyTorch within 1e-05\n", ok ? "all ok" : "FAILED", n,
                    n == 1 ? "" : "s");
        return ok ? exit_ok : exit_runtime;
    }
    if (!chosen) {
        list_examples();
        return exit_ok;
    }
    io::OutputOptions out;
    out.format = r.count("format") ? io::parse_format(r["format"].as<std::string>()) : io::Format::pretty;
    require_text_format(out.format, "example");
    out.digits = digits_option(r);
    out.line_width = terminal_columns();
    CommandOutput args;
    if (r.count("format")) args.format = out.format;
    args.digits = out.digits;
    if (r.count("export")) {
        std::string dir = r["export"].as<std::string>();
        while (dir.size() > 1 && dir.back() == '/') dir.pop_back();  // e/ is e, staged whole as it is
        if (dir.empty()) throw UsageError("--export needs a directory");
        if (dir == "-") throw UsageError("--export - : the example's files go into a directory, not to standard output "
                                         "(attn example NAME prints it)");
        // The files and the text on standard output, all or none (a failed command changes no
        // file): the text is written just before the files appear.
        ExportPlan plan = plan_export(*chosen, dir, r["force"].as<bool>());
        plan.files.push_back({"", export_text(*chosen, dir, plan.same, args)});
        try {
            io::detail::write_files(plan.files);
        } catch (...) {
            for (auto it = plan.made.rbegin(); it != plan.made.rend(); ++it) ::rmdir(it->c_str());
            throw;
        }
        return exit_ok;
    }
    show_example(*chosen, out, args);
    return exit_ok;
}

}  // namespace attn::cli
