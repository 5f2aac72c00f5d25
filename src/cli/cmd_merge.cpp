// attn merge FILE...: key shards of one attention run (attn attend --key-rows A:B --show
// context,lse) merged into the whole result, FlashDecoding's combine (attn/shards.hpp).
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/shards.hpp"
#include "attn/tensor.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/option_values.hpp"
#include "read/input_bytes.hpp"
#include "runtime/did_you_mean.hpp"
#include "write/output_file.hpp"

namespace attn::cli {

namespace {

// Whether two shards hold the same bits (and shapes) in both tensors, and some key there: one
// shard given twice under two files would be merged twice.
bool same_shard(const Tensor& ca, const Tensor& la, const Tensor& cb, const Tensor& lb) {
    bool keys = false;  // an empty shard (every lse -inf) adds nothing, however often
    for (std::size_t s = 0; s < la.slices() && !keys; ++s)
        for (std::size_t r = 0; r < la.rows() && !keys; ++r)
            for (std::size_t c = 0; c < la.cols() && !keys; ++c) keys = std::isfinite(la.slice_data(s)[r * la.row_stride() + c]);
    return keys && same_bits(ca, cb) && same_bits(la, lb);
}

// The lse of a 2-D run is a vector (Tq); a text file gives it back as one row 1×Tq: that
// single row is the vector.
TensorView lse_view(const Tensor& lse, const Shape& context) {
    std::vector<std::size_t> want = context.to_vector();
    if (!want.empty()) want.pop_back();
    TensorView v = lse.view();
    if (v.shape.to_vector() == want || lse.rank() < 2 || lse.shape().numel() != v.cols()) return v;
    return contiguous_view(lse.data(), Shape(want));
}

}  // namespace

int cmd_merge(int argc, char** argv) {
    cxxopts::Options options(
        "attn merge",
        "Merges the key shards of one attention run into the whole result (FlashDecoding's\n"
        "combine across processes). Each FILE holds one shard's context and lse, as written by\n"
        "  attn attend ... --key-rows A:B --show context,lse --format npz -o FILE\n"
        "(npz, json, csv or tsv: FILE:context and FILE:lse are read). With M = max_s lse_s and\n"
        "w_s = exp(lse_s - M): context = sum_s w_s·context_s / sum_s w_s, lse = M + ln sum_s w_s,\n"
        "in float64, rounded once: within float32 rounding of the whole run, the same bits for\n"
        "the same shards in any order, and one shard unchanged. A shard whose row has every key\n"
        "masked (lse -inf) adds nothing; a row masked in every shard keeps the shards' --masked-rows\n"
        "value and lse -inf. The result holds context and lse again, so merges can be merged.\n"
        "A shard holds no record of its keys: one file given twice is refused, and two files with\n"
        "the same bits are noted on stderr (a copied shard would be merged twice).\n");
    options.custom_help("[OPTION...] FILE...");
    options.add_options()
        ("show", "Comma-separated: context, lse (default: context,lse)", cxxopts::value<std::string>(), "LIST");
    add_output_options(options);
    std::vector<std::string> files;
    std::vector<char*> rest =
        split_files(argc, argv, {"--show", "--format", "--digits", "-o", "--output"}, files);
    const auto parsed = parse_or_help(options, int(rest.size()), rest.data());
    if (!parsed) return exit_ok;
    const auto& r = *parsed;
    if (files.empty()) throw UsageError("missing input: attn merge needs at least one FILE (see --help)");
    const io::OutputOptions out = output_options(r);
    std::vector<std::string> show;
    {
        const std::string list = r.count("show") ? r["show"].as<std::string>() : "context,lse";
        std::size_t start = 0;
        while (true) {
            const std::size_t comma = list.find(',', start);
            const std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            if (!option_names::one_of(option_names::merge_show, item))
                throw UsageError("invalid --show item '" + item + "': expected a comma-separated list of context, lse" +
                                 did_you_mean(item, option_names::merge_show));
            if (std::find(show.begin(), show.end(), item) == show.end()) show.push_back(item);  // once, as attend's
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
    }

    for (const std::string& f : files)
        if (io::reads_standard_input(f))
            throw UsageError("attn merge reads each shard's context and lse from a FILE, not standard input");
    // A shard holds no record of its keys, so a shard given twice would be merged twice (every lse
    // ln 2 too high): one file under two names is refused (overlapping shards cannot be told).
    struct Seen {
        dev_t dev;
        ino_t ino;
        std::size_t file;
    };
    std::vector<Seen> seen;
    for (std::size_t i = 0; i < files.size(); ++i) {
        struct stat st {};
        if (::stat(files[i].c_str(), &st) != 0) continue;  // the read names what is wrong with it
        for (const Seen& o : seen)
            if (o.dev == st.st_dev && o.ino == st.st_ino)
                throw UsageError(io::detail::display_name(files[o.file]) + " and " + io::detail::display_name(files[i]) +
                                 " are the same file: each key shard is merged once");
        seen.push_back({st.st_dev, st.st_ino, i});
    }
    std::vector<Tensor> contexts, lses;
    for (const std::string& f : files) {
        // Shards hold NaN rows under --masked-rows nan and -inf in the lse of masked rows.
        try {
            contexts.push_back(io::read_tensor(f + ":context", io::Finite::any_null_nan, max_rank));
            lses.push_back(io::read_tensor(f + ":lse", io::Finite::any_null_neg_inf, max_rank));
        } catch (const InputError& e) {
            throw InputError(std::string(e.what()) + " (a key shard is a file holding context and lse: attn attend " +
                             "--key-rows A:B --show context,lse --format npz -o FILE)");
        }
    }
    // Two files with the same bits may be one shard copied (merged twice, every lse ln 2 too high),
    // or two shards of equal keys: said, not refused.
    for (std::size_t t = 1; t < files.size(); ++t)
        for (std::size_t s = 0; s < t; ++s)
            if (same_shard(contexts[s], lses[s], contexts[t], lses[t]))
                std::fprintf(stderr, "attn: note: %s and %s hold the same context and lse: if they are one key shard "
                                     "twice, it is merged twice (every lse ln 2 too high)\n",
                             io::detail::display_name(files[s]).c_str(), io::detail::display_name(files[t]).c_str());
    std::vector<KeyShard> shards;
    for (std::size_t s = 0; s < files.size(); ++s)
        shards.push_back({contexts[s].view(), lse_view(lses[s], contexts[s].shape())});
    MergedShards m;
    try {
        m = merge_key_shards(shards);
    } catch (const ShardError& e) {
        throw InputError("cannot merge " + io::detail::display_name(files[e.shard]) + ": " + e.what());
    }
    std::vector<io::Item> items;
    for (const std::string& name : show)
        items.push_back(io::tensor_item(name, name == "context" ? m.context.view() : m.lse.view()));
    io::write_output(items, out);
    return exit_ok;
}

}  // namespace attn::cli
