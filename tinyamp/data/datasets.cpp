#include "tinyamp/data/datasets.h"

#include <zlib.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "tinyamp/tensor/factories.h"

#if !defined(TINYAMP_DATA_DIR) || !defined(TINYAMP_INSTALLED_DATA_DIR)
#error "TINYAMP_DATA_DIR (the source tree's data/ folder) and TINYAMP_INSTALLED_DATA_DIR must be defined by the build"
#endif

namespace tinyamp::data {
namespace {

// Reads a file line by line through zlib, which reads gzip files and plain files alike.
class LineReader {
public:
    explicit LineReader(const std::string& path) : path_(path), file_(gzopen(path.c_str(), "rb"))
    {
        TINYAMP_CHECK(file_ != nullptr, io, "cannot open data file '", path, "': ", std::strerror(errno),
                      " (check the path; data::data_path(file) names a file in tinyamp's data/ folder, and the",
                      " environment variable TINYAMP_DATA_DIR chooses that folder)");
    }
    ~LineReader() { gzclose(file_); }
    LineReader(const LineReader&) = delete;
    LineReader& operator=(const LineReader&) = delete;

    /// The next line without its line ending; false at the end of the file.
    bool next(std::string& line)
    {
        line.clear();
        char buffer[4096];
        while (gzgets(file_, buffer, sizeof buffer) != nullptr) {
            line += buffer;
            if (!line.empty() && line.back() == '\n')
                break;
        }
        int status = Z_OK;
        const char* message = gzerror(file_, &status);
        TINYAMP_CHECK(status == Z_OK || status == Z_STREAM_END, io, "cannot read data file '", path_, "' after line ",
                      line_number_, ": ", message, " (the file is damaged or truncated; copy it again)");
        if (line.empty())
            return false;
        ++line_number_;
        while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
            line.pop_back();
        return true;
    }

    std::int64_t line_number() const { return line_number_; }
    const std::string& path() const { return path_; }

private:
    std::string path_;
    gzFile file_;
    std::int64_t line_number_ = 0;
};

std::vector<std::string_view> split_fields(std::string_view line)
{
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = line.find(',', start);
        std::string_view field = line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        while (!field.empty() && (field.front() == ' ' || field.front() == '\t'))
            field.remove_prefix(1);
        while (!field.empty() && (field.back() == ' ' || field.back() == '\t'))
            field.remove_suffix(1);
        fields.push_back(field);
        if (comma == std::string_view::npos)
            return fields;
        start = comma + 1;
    }
}

// Reads `field` as std::from_chars reads a double: plain decimal or scientific, an optional '-',
// nothing else around it (no '+', no hex), in range. (from_chars itself is missing for doubles
// in the libc++ of Emscripten 3.1.6, the web build's, and of Apple's Clang before LLVM 20.)
bool read_decimal(std::string_view field, double& value)
{
    if (field.empty() || field.find_first_of("xX") != std::string_view::npos) return false;
    const unsigned char first = static_cast<unsigned char>(field[0]);
    if (!(std::isdigit(first) || first == '-' || first == '.')) return false;
    const std::string text(field);
    char* stop = nullptr;
    errno = 0;
    value = std::strtod(text.c_str(), &stop);
    return stop == text.c_str() + text.size() && errno != ERANGE;
}

double parse_number(std::string_view field, const LineReader& reader, std::size_t column)
{
    double value = 0.0;
    TINYAMP_CHECK(read_decimal(field, value) && std::isfinite(value), io, "data file '",
                  reader.path(), "' line ", reader.line_number(), " column ", column + 1, ": '", field,
                  "' is not a finite number");
    return value;
}

std::vector<std::string_view> read_row(LineReader& reader, const std::string& line, std::size_t columns)
{
    std::vector<std::string_view> fields = split_fields(line);
    TINYAMP_CHECK(fields.size() == columns, io, "data file '", reader.path(), "' line ", reader.line_number(),
                  ": expected ", columns, " comma-separated fields (features, then the label), found ", fields.size());
    return fields;
}

// Reads rows of `feature_count` numbers and a label in 0..class_count-1 until the end of the
// file, and checks that there were `expected_rows` of them.
Dataset read_table(LineReader& reader, std::int64_t expected_rows, std::int64_t feature_count, std::int64_t class_count)
{
    const std::size_t columns = std::size_t(feature_count) + 1;
    std::vector<double> features;
    std::vector<double> labels;
    features.reserve(std::size_t(expected_rows * feature_count));
    labels.reserve(std::size_t(expected_rows));
    std::string line;
    while (reader.next(line)) {
        const std::vector<std::string_view> fields = read_row(reader, line, columns);
        for (std::size_t c = 0; c + 1 < columns; ++c)
            features.push_back(parse_number(fields[c], reader, c));
        const double label = parse_number(fields.back(), reader, columns - 1);
        TINYAMP_CHECK(label == std::floor(label) && label >= 0 && label < double(class_count), io, "data file '",
                      reader.path(), "' line ", reader.line_number(), ": label ", fields.back(),
                      " is out of range (expected a whole number from 0 to ", class_count - 1, ")");
        labels.push_back(label);
    }
    const auto rows = std::int64_t(labels.size());
    TINYAMP_CHECK(rows == expected_rows, io, "data file '", reader.path(), "' has ", rows, " rows of data, expected ",
                  expected_rows, " (a truncated or different file?)");
    return Dataset{tensor(features, Shape{rows, feature_count}, f32), tensor(labels, Shape{rows}, i64)};
}

}  // namespace

Dataset load_digits(const std::string& path)
{
    LineReader reader(path);
    return read_table(reader, /*expected_rows=*/1797, /*feature_count=*/64, /*class_count=*/10);
}

Dataset load_breast_cancer(const std::string& path)
{
    LineReader reader(path);
    std::string header;
    TINYAMP_CHECK(reader.next(header), io, "data file '", path, "' is empty (expected the header line 569,30,malignant,benign)");
    const std::vector<std::string_view> fields = split_fields(header);
    TINYAMP_CHECK(fields.size() == 4 && fields[0] == "569" && fields[1] == "30", io, "data file '", path,
                  "' line 1: expected the header 569,30,malignant,benign, found '", header, "'");
    return read_table(reader, /*expected_rows=*/569, /*feature_count=*/30, /*class_count=*/2);
}

std::string data_path(const std::string& file)
{
    const char* from_environment = std::getenv("TINYAMP_DATA_DIR");
    if (from_environment != nullptr && *from_environment != '\0') {
        return std::string(from_environment) + "/" + file;
    }
    // A build used from its source tree reads the checkout's data/; an installed tinyamp whose
    // source tree is gone reads the copy `cmake --install` put in <prefix>/share/tinyamp/data.
    const bool source_tree_present = std::filesystem::is_directory(TINYAMP_DATA_DIR);
    return std::string(source_tree_present ? TINYAMP_DATA_DIR : TINYAMP_INSTALLED_DATA_DIR) + "/" + file;
}

Dataset subset(const Dataset& dataset, const std::vector<std::int64_t>& indices)
{
    const std::int64_t n = dataset.size();
    TINYAMP_CHECK(dataset.features.defined() && dataset.features.dim() >= 1 && dataset.features.size(0) == n, shape,
                  "a Dataset needs features whose first dimension is the number of labels (", n, ")");
    for (const std::int64_t i : indices)
        TINYAMP_CHECK(i >= 0 && i < n, index, "sample index ", i, " is out of range for a data set of ", n, " samples");

    // Copies whole rows (one sample each) of a contiguous CPU tensor, byte for byte.
    const auto gather_rows = [&](const Tensor& source) {
        const Tensor rows = source.cpu().contiguous();
        Shape shape = rows.shape();
        shape[0] = std::int64_t(indices.size());
        Tensor result = empty(shape, rows.dtype());
        const std::size_t row_bytes = n == 0 ? 0 : std::size_t(rows.nbytes() / n);
        const auto* from = static_cast<const unsigned char*>(rows.data_ptr());
        auto* to = static_cast<unsigned char*>(result.data_ptr());
        for (std::size_t k = 0; k < indices.size(); ++k)
            std::memcpy(to + k * row_bytes, from + std::size_t(indices[k]) * row_bytes, row_bytes);
        return result.to(source.device());
    };
    return Dataset{gather_rows(dataset.features), gather_rows(dataset.labels)};
}

std::vector<std::int64_t> shuffled_indices(std::int64_t n, Generator& generator)
{
    std::vector<std::int64_t> order(std::size_t(n < 0 ? 0 : n));
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = std::int64_t(i);
    // Fisher-Yates from the back; the modulo's bias is below 2^-40 for any data set that fits in memory.
    for (std::size_t i = order.size(); i > 1; --i)
        std::swap(order[i - 1], order[generator.next_u64() % i]);
    return order;
}

std::pair<Dataset, Dataset> train_test_split(const Dataset& dataset, double test_fraction, std::uint64_t seed)
{
    TINYAMP_CHECK(test_fraction > 0.0 && test_fraction < 1.0, value, "train_test_split: test_fraction must be between 0 and 1 (exclusive), got ",
                  test_fraction);
    const std::int64_t n = dataset.size();
    const auto test_count = std::int64_t(std::ceil(double(n) * test_fraction));
    TINYAMP_CHECK(test_count < n, value, "train_test_split: a test fraction of ", test_fraction, " of ", n,
                  " samples leaves none for training; use a smaller test_fraction");
    Generator generator(seed);
    const std::vector<std::int64_t> order = shuffled_indices(n, generator);
    const std::vector<std::int64_t> test(order.begin(), order.begin() + test_count);
    const std::vector<std::int64_t> train(order.begin() + test_count, order.end());
    return {subset(dataset, train), subset(dataset, test)};
}

}  // namespace tinyamp::data
