#include "cli/help/help.hpp"
#include "runtime/utf8.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>

#include "attn/error.hpp"
#include "attn/version.hpp"
#include "cli/common.hpp"
#include "runtime/did_you_mean.hpp"

namespace attn::cli {

namespace {

// "Inputs (FILE is text or .npy)" → heading "Inputs", note "FILE is text or .npy".
void split_group_name(const std::string& name, std::string& heading, std::string& note) {
    const auto paren = name.find(" (");
    heading = name.substr(0, paren);
    note.clear();
    if (paren != std::string::npos && name.back() == ')') note = name.substr(paren + 2, name.size() - paren - 3);
    if (heading.empty()) heading = "Options";
    if (!note.empty()) note[0] = char(std::toupper((unsigned char)note[0]));
}

OptionDoc option_doc(const cxxopts::HelpOptionDetails& d) {
    OptionDoc o;
    o.short_name = d.s;
    o.long_names = d.l;
    o.description = d.desc;
    o.takes_value = !d.is_boolean;
    o.arg = o.takes_value ? (d.arg_help.empty() ? std::string("VALUE") : d.arg_help) : "";
    o.implicit = o.takes_value && d.has_implicit;
    if (d.has_default && o.takes_value && o.description.find("default") == std::string::npos)
        o.description += " (default: " + d.default_value + ")";
    return o;
}

// The command's description as declared with cxxopts (everything before its usage line),
// with the hand-made line breaks of each paragraph removed.
std::string declared_description(const cxxopts::Options& options) {
    std::string text = options.help({"\x01"}, true);
    const auto usage = text.rfind("\nUsage:\n  " + options.program());
    text = usage == std::string::npos ? std::string() : text.substr(0, usage);
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\n') out += text[i];
        else if (i + 1 < text.size() && text[i + 1] == '\n') out += "\n\n", ++i;
        else if (!out.empty() && out.back() != ' ') out += ' ';
    }
    while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
    return out;
}

std::optional<cxxopts::Options> captured;

}  // namespace

std::size_t display_width(const std::string& text) { return io::display_width(text); }

std::string wrap(const std::string& text, std::size_t first_used, std::size_t indent, std::size_t width) {
    std::string out;
    std::size_t used = first_used;
    bool line_empty = true;
    std::size_t at = 0;
    while (at < text.size()) {
        if (text[at] == ' ') {
            ++at;
            continue;
        }
        if (text[at] == '\n') {  // a paragraph break
            out += "\n";
            if (at + 1 < text.size() && text[at + 1] == '\n') out += "\n", ++at;
            out += std::string(indent, ' ');
            used = indent, line_empty = true, ++at;
            continue;
        }
        const std::size_t end = text.find_first_of(" \n", at);
        const std::string word = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
        const std::size_t w = display_width(word);
        if (!line_empty && used + 1 + w > width) {
            out += "\n" + std::string(indent, ' ');
            used = indent, line_empty = true;
        }
        if (!line_empty) out += ' ', ++used;
        out += word, used += w, line_empty = false;
        at = end == std::string::npos ? text.size() : end;
    }
    return out;
}

CommandDoc command_doc(const Command& c, const cxxopts::Options& options) {
    CommandDoc doc;
    doc.command = &c;
    doc.description = declared_description(options);
    std::vector<GroupDoc> groups;
    for (const std::string& name : options.groups()) {
        GroupDoc g;
        split_group_name(name, g.heading, g.note);
        for (const auto& d : options.group_help(name).options) {
            bool positional = false;
            for (const auto& p : c.positionals) positional = positional || (!d.l.empty() && d.l.front() == p);
            if (!positional) g.options.push_back(option_doc(d));
        }
        if (g.options.empty()) continue;
        groups.push_back(std::move(g));
    }
    // The table's order first, then the rest as cxxopts lists them; -h/--help (ungrouped)
    // last when the command's own options are in named groups.
    for (const std::string& want : c.group_order) {
        const std::string heading = want.empty() ? "Options" : want;
        for (auto& g : groups)
            if (g.heading == heading && !g.options.empty()) doc.groups.push_back(std::move(g)), g.options.clear();
    }
    for (auto& g : groups)
        if (!g.options.empty()) doc.groups.push_back(std::move(g));
    return doc;
}

CommandDoc command_doc(const Command& c) {
    if (!c.declares_options) {
        CommandDoc doc;
        doc.command = &c;
        doc.description = c.summary;
        doc.description[0] = char(std::toupper((unsigned char)doc.description[0]));
        doc.description += '.';
        GroupDoc flags{"Options", "", {}};
        for (const auto& [name, what] : c.flags) flags.options.push_back({"", {name}, "", what});
        flags.options.push_back({"h", {"help"}, "", "Show this help and exit"});
        doc.groups.push_back(std::move(flags));
        return doc;
    }
    captured.reset();
    options_capture = &captured;
    std::string name = c.name;
    char* argv[] = {name.data(), nullptr};
    try {
        c.run(1, argv);
    } catch (...) {
        options_capture = nullptr;
        throw;
    }
    options_capture = nullptr;
    if (!captured) throw RuntimeFailure(std::string("internal error: attn ") + c.name + " declared no options");
    return command_doc(c, *captured);
}

std::vector<CommandDoc> all_command_docs() {
    std::vector<CommandDoc> docs;
    for (const Command& c : command_table()) docs.push_back(command_doc(c));
    return docs;
}

std::string option_spec(const OptionDoc& o) {
    std::string s;
    if (!o.short_name.empty()) s += "-" + o.short_name;
    for (const auto& l : o.long_names) s += (s.empty() ? "--" : ", --") + l;
    if (o.takes_value) s += o.implicit ? "[=" + o.arg + "]" : " " + o.arg;
    return s;
}

std::string help_page(const CommandDoc& doc, std::size_t width) {
    const Command& c = *doc.command;
    width = std::max<std::size_t>(width, 40);
    std::string out = wrap(std::string("attn ") + c.name + " — " + c.summary, 0, 4, width) + "\n\nUsage:\n";
    for (const auto& u : c.usage) out += "  " + wrap(std::string("attn ") + c.name + " " + u, 2, 6, width) + "\n";
    if (!doc.description.empty()) out += "\n" + wrap(doc.description, 0, 0, width) + "\n";

    std::size_t spec_width = 0;
    for (const auto& g : doc.groups)
        for (const auto& o : g.options) spec_width = std::max(spec_width, display_width(option_spec(o)));
    std::size_t column = 2 + std::min<std::size_t>(spec_width, 24) + 2;
    if (width < column + 30) column = 8;  // narrow: descriptions under the option
    for (const auto& g : doc.groups) {
        out += "\n" + g.heading + ":\n";
        if (!g.note.empty()) out += "  " + wrap(g.note, 2, 2, width) + "\n";
        for (const auto& o : g.options) {
            const std::string spec = "  " + option_spec(o);
            const std::size_t used = display_width(spec);
            out += spec;
            if (used + 2 > column) out += "\n" + std::string(column, ' ');
            else out += std::string(column - used, ' ');
            out += wrap(o.description, column, column, width) + "\n";
        }
    }
    if (!c.examples.empty()) {
        out += "\nExamples:\n";
        for (const auto& e : c.examples) out += "  " + e + "\n";  // commands are never wrapped
    }
    return out;
}

std::string help_page_for(const cxxopts::Options& options) {
    std::string name = options.program();
    if (name.rfind("attn ", 0) == 0) name = name.substr(5);
    const Command* c = find_command(name);
    if (!c) return options.help();
    return help_page(command_doc(*c, options), terminal_columns());
}

std::string top_level_help(std::size_t width) {
    width = std::max<std::size_t>(width, 40);
    std::string out = std::string("attn ") + ATTN_VERSION + " — scaled dot-product attention from the shell\n\n" +
                      "Usage:\n"
                      "  attn COMMAND [OPTIONS]\n"
                      "  attn help COMMAND       " +
                      wrap("the options and examples of one command (also attn COMMAND --help)", 26, 26, width) +
                      "\n  attn --version          " + wrap("version and the kernel set in use", 26, 26, width) +
                      "\n\nCommands:\n";
    for (const Command& c : command_table()) {
        std::string line = std::string("  ") + c.name;
        line += std::string(line.size() < 15 ? 15 - line.size() : 1, ' ');
        out += line + wrap(c.summary, 15, 15, width) + "\n";
    }
    out += "\n" +
           wrap("Inputs are text (rows of numbers; also pasted tensor([[...]]) / array([[...]])) or .npy, "
                "recognised by content; '-' reads standard input (also an .npz or torch.save file there; -:NAME "
                "selects one of its results or tensors, in any number of inputs). A tensor of a model file "
                "is FILE.npz:NAME, "
                "FILE.safetensors:NAME or FILE.pt:NAME (torch.save; also .bin, .pth) (see attn ls); one result of several in attn's own text "
                "output is FILE:NAME (FILE.json:NAME, FILE.csv:NAME, any text file's name).\n"
                "Exit status: 0 ok, 1 runtime failure, 2 usage error, 3 bad input.\n"
                "Limits: an input file or stream of at most 2 GiB; tensors of at most 4 dimensions into softmax, "
                "matmul and attend's -q/-k/-v (3 into -x, 5 into view, 32 into concat: NumPy's limit); 32 dimensions "
                "and 2^28 elements per "
                "tensor in `random`; bench cases within half the "
                "memory and 10^13 flop per run; an npz output of 4 GiB. Beyond them: exit 2 or 3 with a message, "
                "before any output.\n"
                "The manual: man attn (attn help --man writes it). Shell completions: attn completions bash|zsh.",
                0, 0, width) +
           "\n";
    return out;
}

int cmd_help(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        std::fputs(top_level_help(terminal_columns()).c_str(), stdout);
        return exit_ok;
    }
    if (args.size() > 1) throw UsageError("help takes one COMMAND (got '" + args[0] + "' and '" + args[1] + "')");
    const std::string& what = args[0];
    if (what == "--man") {
        std::fputs(man_page().c_str(), stdout);
        return exit_ok;
    }
    if (what == "-h" || what == "--help") {
        std::fputs(help_page(command_doc(*find_command("help")), terminal_columns()).c_str(), stdout);
        return exit_ok;
    }
    if (what.starts_with("-"))
        throw UsageError("help: no option '" + what + "'" + did_you_mean(what, {"--man", "--help"}) +
                         " (attn help [COMMAND | --man])");
    const Command* c = find_command(what);
    if (!c)
        throw UsageError("help: no command named '" + what + "'" + did_you_mean(what, command_names()) +
                         " (attn help lists the commands)");
    std::fputs(help_page(command_doc(*c), terminal_columns()).c_str(), stdout);
    return exit_ok;
}

}  // namespace attn::cli
