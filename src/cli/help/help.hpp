// Help pages, the man page and the shell completions, all read from the same place: the
// options each command declares with cxxopts (captured through parse_or_help) and the
// command table (cli/commands.hpp).
#pragma once
#include <cxxopts.hpp>
#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace attn::cli {

struct OptionDoc {
    std::string short_name;               // "o", or empty
    std::vector<std::string> long_names;  // "output"
    std::string arg;                      // "PATH"; empty for a flag
    std::string description;              // with "(default: X)" when cxxopts holds a default
    bool takes_value = false;
    bool implicit = false;                // the value is optional and attached: --causal[=ALIGN]
};

struct GroupDoc {
    std::string heading;  // "Inputs"
    std::string note;     // what the group's name said in parentheses, or empty
    std::vector<OptionDoc> options;
};

struct CommandDoc {
    const Command* command = nullptr;
    std::string description;  // paragraphs separated by blank lines
    std::vector<GroupDoc> groups;
};

// A command's documentation: its cxxopts options (in the command table's group order) and
// description, captured by running the command in capture mode. Commands without options
// (help, completions) get an empty list.
CommandDoc command_doc(const Command& c);
CommandDoc command_doc(const Command& c, const cxxopts::Options& options);
std::vector<CommandDoc> all_command_docs();

// "-o, --output PATH", "--causal[=ALIGN]".
std::string option_spec(const OptionDoc& o);

// Text pages wrapped to `width` columns with a hanging indent.
std::string help_page(const CommandDoc& doc, std::size_t width);
std::string top_level_help(std::size_t width);
// The page of the command that declared `options` (its program name "attn NAME").
std::string help_page_for(const cxxopts::Options& options);

std::string man_page();          // cli/help/help_man.cpp
std::string bash_completion();   // cli/help/help_completions.cpp
std::string zsh_completion();

// Word-wraps `text` to `width` columns: the first line continues after `first_used` columns,
// the others start with `indent` spaces. Counts UTF-8 code points as columns.
std::string wrap(const std::string& text, std::size_t first_used, std::size_t indent, std::size_t width);
std::size_t display_width(const std::string& text);  // terminal columns (io::display_width)

}  // namespace attn::cli
