// Where output files go: regular files atomically and all of a command's together, devices and pipes written
// in place (never replaced by a regular file), "-" to stdout for every output flag, sockets and directories
// refused, image names checked, and write errors on stdout reported. The hostile targets are made here:
// FIFOs, private device nodes (as root), a listening socket, /dev/full as stdout.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <future>
#include <string>
#include <vector>

#include "cli_test_support.h"

namespace fs = std::filesystem;

namespace ma::test {
namespace {

bool is_char_device(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

// Reads a FIFO to its end in the background, as `>(gzip > x.gz)` would.
std::future<std::string> drain(const fs::path& fifo) {
  return std::async(std::launch::async, [fifo] { return read_file(fifo); });
}

TEST(CliOutputs, DevNullAndDevStdoutAreWrittenThroughNotReplaced) {
  auto r = run_cli(example() + " --skip-tokenizer --quiet --export /dev/stdout --export-markdown /dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(is_char_device("/dev/null"));
  EXPECT_EQ(json::Document::parse(r.out, "stdout").root().find("model_id")->as_string(), MA_EXAMPLE_DIR);
}

TEST(CliOutputs, PrivateDeviceNodesStayDevicesAsRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "mknod needs root; run as root (as CI does) to check device nodes";
  TempDir dir;
  const fs::path null_node = dir / "null", full_node = dir / "full";
  ASSERT_EQ(::mknod(null_node.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  ASSERT_EQ(::mknod(full_node.c_str(), S_IFCHR | 0666, makedev(1, 7)), 0);
  auto ok = run_cli(example() + " --skip-tokenizer --quiet --export-markdown " + quoted(null_node));
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_TRUE(is_char_device(null_node));
  // /dev/full: the write fails with ENOSPC; the node survives and the error names it.
  auto full = run_cli(example() + " --skip-tokenizer --quiet --export-markdown " + quoted(full_node));
  EXPECT_EQ(full.exit_code, 9);
  EXPECT_NE(full.err.find(full_node.string()), std::string::npos) << full.err;
  EXPECT_NE(full.err.find("No space left"), std::string::npos) << full.err;
  EXPECT_TRUE(is_char_device(full_node));
  EXPECT_EQ(std::vector<fs::path>(fs::directory_iterator(dir.path()), {}).size(), 2u)
      << "a temp file was left";
}

TEST(CliOutputs, FifoReceivesTheOutputAndStaysAFifo) {
  TempDir dir;
  const fs::path fifo = dir / "out.csv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto reader = drain(fifo);
  auto r = run_cli("tensors " + example() + " --quiet --csv " + quoted(fifo));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string csv = reader.get();
  EXPECT_EQ(csv.rfind("kind,name,shape,dtype", 0), 0u) << csv.substr(0, 200);
  EXPECT_NE(csv.find("model.layers.0.self_attn.q_proj.weight"), std::string::npos);
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(CliOutputs, DashIsStdoutForEveryOutputFlag) {
  TempDir dir;
  fs::copy(example_dir(), dir / "b", fs::copy_options::recursive);  // a second checkpoint to compare with
  const std::string b = quoted(dir / "b");
  struct Case {
    std::string args;
    std::string expect;  // on stdout
  };
  const std::vector<Case> cases = {
      {example() + " --skip-tokenizer --quiet --export -", "\"model_id\""},
      {example() + " --skip-tokenizer --quiet --export-markdown -", "# "},
      {example() + " --skip-tokenizer --quiet --visualize --viz-output -", "<svg"},
      {"tensors " + example() + " --csv -", "kind,name,shape,dtype"},
      {"stats " + example() + " --quiet --export -", "\"tensors\""},
      {"stats " + example() + " --quiet --csv -", "model_path,model_id"},
      {"stats " + example() + " --quiet --markdown -", "|"},
      {"stats " + example() + " --quiet --plot -", "<svg"},
      {"stats " + example() + " --quiet --trends -", "<svg"},
      {"compare " + example() + " " + b + " --quiet --csv -", "name"},
      {"compare " + example() + " " + b + " --quiet --export -", "\"tensors\""},
      {"perf " + example() + " --quiet --report -", "# "},
      {"perf " + example() + " --quiet --plot -", "<svg"},
  };
  for (const Case& c : cases) {
    auto r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 0) << c.args << "\n" << r.err;
    EXPECT_NE(r.out.find(c.expect), std::string::npos) << c.args << "\n" << r.out.substr(0, 300);
    EXPECT_FALSE(fs::exists("-")) << c.args << " wrote a file named -";
  }
}

// Without --quiet too, a "-" output is the only document on stdout: the console report stays out (the report
// printed itself after the JSON of --export - and the SVG of --viz-output -, which no parser could read).
// Titles name a local model by its directory, never by its full path (the README's rule), in every command's
// Markdown, HTML and plots.
TEST(CliOutputs, TitlesNameALocalModelByItsDirectory) {
  const std::string full = example_dir().string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"stats " + example() + " --quiet --markdown -", "# Weight statistics: tiny-llama\n"},
      {"stats " + example() + " --quiet --html -", "<title>Weight statistics: tiny-llama</title>"},
      {"stats " + example() + " --quiet --plot -", "tiny-llama"},
      {"stats " + example() + " --quiet --trends -", "tiny-llama"},
      {"compare " + example() + " " + example() + " --quiet --markdown -",
       "# Checkpoint drift: tiny-llama → tiny-llama\n"},
      {"plan " + example() + " --gpu h200 --quiet --markdown -", "# Plan: tiny-llama\n"},
      {"serve " + example() + " --quiet --markdown -", "# Serving estimate: tiny-llama\n"},
  };
  for (const auto& [args, title] : cases) {
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    EXPECT_NE(r.out.find(title), std::string::npos) << args << "\n" << r.out.substr(0, 300);
    EXPECT_EQ(r.out.find("# Weight statistics: " + full), std::string::npos) << args;
    EXPECT_EQ(r.out.find("Checkpoint drift: " + full), std::string::npos) << args;
  }
}

TEST(CliOutputs, ADashOutputIsAloneOnStdout) {
  struct Case {
    std::string args;
    std::string starts, ends;  // stdout's first and last characters
  };
  const std::vector<Case> cases = {
      {example() + " --skip-tokenizer --export -", "{", "}\n"},
      {example() + " --skip-tokenizer --export-markdown -", "# ", "\n"},
      {example() + " --skip-tokenizer --visualize --viz-output -", "<?xml", "</svg>\n"},
      {example() + " --skip-tokenizer --html -", "<!doctype html>", "</html>\n"},
      {"tensors " + example() + " --csv -", "kind,name", "\n"},
      {"stats " + example() + " --export -", "{", "}\n"},
  };
  for (const Case& c : cases) {
    auto r = run_cli(c.args);
    ASSERT_EQ(r.exit_code, 0) << c.args << "\n" << r.err;
    EXPECT_EQ(r.out.rfind(c.starts, 0), 0u) << c.args << "\n" << r.out.substr(0, 200);
    EXPECT_TRUE(r.out.ends_with(c.ends)) << c.args << "\n"
                                         << r.out.substr(r.out.size() - std::min<size_t>(r.out.size(), 200));
    EXPECT_EQ(r.out.find("MODEL: tiny-llama\n"), std::string::npos)
        << c.args << ": the console report followed";
  }
}

// Two outputs that both ask for stdout would interleave there: refused before any work, naming both.
TEST(CliOutputs, TwoDocumentsOnStdoutAreRefused) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {example() + " --json --export -", "--json and --export -"},
      {example() + " --export - --export-markdown -", "--export - and --export-markdown -"},
      {example() + " --json --visualize --viz-output -", "--json and --viz-output -"},
      {"tensors " + example() + " --json --csv -", "--json and --csv -"},
      {"stats " + example() + " --json --plot -", "--json and --plot -"},
      {"stats " + example() + " --csv - --html -", "--csv - and --html -"},
  };
  for (const auto& [args, named] : cases) {
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_EQ(r.out, "") << args;
    EXPECT_NE(r.err.find(named + ": each writes to standard output"), std::string::npos) << args << "\n"
                                                                                         << r.err;
  }
}

// Two outputs to one file would keep only the one written last: refused before any work, however the path
// is spelled.
TEST(CliOutputs, TwoOutputsToOneFileAreRefused) {
  TempDir dir;
  const std::string same = quoted(dir / "same.out"), again = quoted(dir / "." / "same.out");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {example() + " --export " + same + " --export-markdown " + again, "--export and --export-markdown"},
      {"stats " + example() + " --plot " + dir.path().string() + "/p.svg --trends " + dir.path().string() +
           "/p.svg",
       "--plot and --trends"},
      {"compare " + example() + " " + example() + " --csv " + same + " --markdown " + same,
       "--csv and --markdown"},
      {"perf " + example() + " --report " + same + " --html " + same, "--report and --html"},
  };
  for (const auto& [args, named] : cases) {
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(named + ": both write this file"), std::string::npos) << args << "\n" << r.err;
    EXPECT_FALSE(fs::exists(dir / "same.out")) << args;
    EXPECT_FALSE(fs::exists(dir / "p.svg")) << args;
  }
  // A device takes each output in turn: /dev/null named twice is no conflict.
  auto null = run_cli("stats " + example() + " --quiet --export /dev/null --csv /dev/null");
  EXPECT_EQ(null.exit_code, 0) << null.err;
}

// `--export "$OUT"` with OUT unset: a usage error, not a run that silently writes nothing.
TEST(CliOutputs, AnEmptyFileNameIsAUsageError) {
  for (const std::string& args :
       {example() + " --export ''", example() + " --export=",
        "compare " + example() + " " + example() + " --csv ''", "stats " + example() + " --token-file ''"}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("needs a file name, and was given an empty one"), std::string::npos) << r.err;
  }
}

// An output never replaces a file the run read: the model's config, its weights, a compared checkpoint (the
// atomic rename would replace even a read-only file). Nothing is written, the input is intact.
TEST(CliOutputs, AnOutputOverAnInputIsRefused) {
  TempDir dir;
  fs::copy(example_dir(), dir / "m", fs::copy_options::recursive);
  const fs::path config = dir / "m" / "config.json";
  const std::string before = read_file(config);
  fs::path weights;
  for (const auto& e : fs::directory_iterator(dir / "m"))
    if (e.path().extension() == ".safetensors") weights = e.path();
  ASSERT_FALSE(weights.empty());
  const std::string weights_before = read_file(weights);
  fs::create_symlink(config, dir / "link.json");
  for (const std::string& args :
       {quoted(dir / "m") + " --quiet --export " + quoted(config),
        quoted(dir / "m") + " --quiet --export " + quoted(dir / "link.json"),
        "compare " + quoted(dir / "m") + " " + example() + " --quiet --export " + quoted(weights),
        "stats " + quoted(weights) + " --quiet --csv " + quoted(weights)}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("is a file this run read as input; refusing to replace it"), std::string::npos)
        << r.err;
    EXPECT_EQ(read_file(config), before) << args;
    EXPECT_EQ(read_file(weights), weights_before) << args;
  }
}

TEST(CliOutputs, SymlinkToAFileKeepsTheLinkAndReplacesTheTarget) {
  TempDir dir;
  write_file(dir / "target.json", "old");
  fs::create_symlink(dir / "target.json", dir / "link.json");
  auto r = run_cli(example() + " --skip-tokenizer --quiet --export " + quoted(dir / "link.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
  EXPECT_NE(read_file(dir / "target.json").find("\"model_id\""), std::string::npos);
}

// A command's outputs appear together or not at all: the JSON export is written and flushed beside its
// place, but the Markdown's directory does not exist, so neither is renamed into place. Before, the JSON
// replaced the old file and the command then failed on the Markdown.
TEST(CliOutputs, OutputsAppearTogetherOrNotAtAll) {
  TempDir dir;
  write_file(dir / "report.json", "old");
  write_file(dir / "diagram.svg", "old");
  auto r = run_cli(example() + " --skip-tokenizer --quiet --visualize --viz-output " +
                   quoted(dir / "diagram.svg") + " --export " + quoted(dir / "report.json") +
                   " --export-markdown " + quoted(dir / "missing" / "report.md"));
  EXPECT_EQ(r.exit_code, 9) << r.err;
  EXPECT_NE(r.err.find((dir / "missing" / "report.md").string()), std::string::npos) << r.err;
  EXPECT_EQ(read_file(dir / "report.json"), "old");
  EXPECT_EQ(read_file(dir / "diagram.svg"), "old");
  EXPECT_EQ(std::vector<fs::path>(fs::directory_iterator(dir.path()), {}).size(), 2u)
      << "a temp file was left";
  // The same outputs where they can all be written: all three appear.
  fs::create_directories(dir / "missing");
  auto ok = run_cli(example() + " --skip-tokenizer --quiet --visualize --viz-output " +
                    quoted(dir / "diagram.svg") + " --export " + quoted(dir / "report.json") +
                    " --export-markdown " + quoted(dir / "missing" / "report.md"));
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(read_file(dir / "report.json").find("\"model_id\""), std::string::npos);
  EXPECT_NE(read_file(dir / "diagram.svg").find("<svg"), std::string::npos);
  EXPECT_NE(read_file(dir / "missing" / "report.md").find("#"), std::string::npos);
}

TEST(CliOutputs, DirectoriesAndSocketsAreRefused) {
  TempDir dir;
  fs::create_directories(dir / "d");
  auto d = run_cli(example() + " --skip-tokenizer --quiet --export " + quoted(dir / "d"));
  EXPECT_EQ(d.exit_code, 9);
  EXPECT_NE(d.err.find("is a directory"), std::string::npos) << d.err;

  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(s, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string sock = (dir / "s").string();
  ASSERT_LT(sock.size(), sizeof addr.sun_path);
  std::copy(sock.begin(), sock.end(), addr.sun_path);
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  auto r = run_cli("tensors " + example() + " --quiet --csv " + quoted(fs::path(sock)));
  ::close(s);
  EXPECT_EQ(r.exit_code, 9);
  EXPECT_NE(r.err.find("socket"), std::string::npos) << r.err;
  struct stat st {};
  ASSERT_EQ(::lstat(sock.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode)) << "the socket was replaced";
}

TEST(CliOutputs, ImageNamesMustSayPngOrSvg) {
  TempDir dir;
  for (const std::string& args : {example() + " --visualize --viz-output " + quoted(dir / "x.txt"),
                                  example() + " --visualize --viz-output " + quoted(dir / "x.jpg"),
                                  "stats " + example() + " --plot " + quoted(dir / "x.gif"),
                                  "stats " + example() + " --trends " + quoted(dir / "x"),
                                  "perf " + example() + " --plot " + quoted(dir / "x.pdf")}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find(".png or .svg"), std::string::npos) << r.err;
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
  auto upper =
      run_cli(example() + " --skip-tokenizer --quiet --visualize --viz-output " + quoted(dir / "X.SVG"));
  EXPECT_EQ(upper.exit_code, 0) << upper.err;
  const std::string svg =
      read_file(dir / "X.SVG");  // the extension's case does not matter: SVG text, not PNG
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.rfind("\x89PNG", 0), 0u);
}

TEST(CliOutputs, AFullStdoutFailsWithExit9) {
  TempDir dir;
  const int code =
      run_shell(cli_binary() + " tensors " + example() + " --json >/dev/full 2>" + quoted(dir / "err"))
          .exit_code;
  EXPECT_EQ(code, 9);
  const std::string err = read_file(dir / "err");
  EXPECT_NE(err.find("standard output: write failed: No space left on device"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST(CliOutputs, AClosedPipeEndsQuietly) {
  // Output far larger than a pipe's buffer, a reader that leaves after one byte, and SIGPIPE ignored (as
  // under many supervisors): the write fails with EPIPE, which must end the command without a message.
  TempDir dir;
  write_file(dir / "config.json", tiny_llama_config("600"));
  const int code = run_shell("sh -c \"trap '' PIPE; " + cli_binary() + " tensors " +
                             quoted(dir / "config.json") + " --json 2>" + quoted(dir / "err") +
                             "; echo \\$? >" + quoted(dir / "rc") + "\" | head -c 1 >/dev/null")
                       .exit_code;
  ASSERT_EQ(code, 0);
  EXPECT_EQ(read_file(dir / "rc"), "9\n");
  EXPECT_EQ(read_file(dir / "err"), "");
}

// The model's own files are refused as outputs by every command, not only those that happen to read them:
// stats, spectrum and embeddings never open config.json (nor stats a tokenizer file), and replaced it
// silently. A new file inside the model's directory, or an earlier export there, is still an output.
TEST(CliOutputs, AnOutputOverAModelFileTheCommandDoesNotReadIsRefused) {
  TempDir dir;
  fs::copy(example_dir(), dir / "m", fs::copy_options::recursive);
  const fs::path config = dir / "m" / "config.json", tokenizer = dir / "m" / "tokenizer.json";
  write_file(tokenizer, R"({"model": {"vocab": {}}})");
  const std::string config_before = read_file(config), tokenizer_before = read_file(tokenizer);
  const std::string m = quoted(dir / "m");
  for (const std::string& args :
       {"stats " + m + " --quiet --export " + quoted(config),
        "spectrum " + m + " --quiet --export " + quoted(config),
        "embeddings " + m + " --quiet --export " + quoted(config),
        "stats " + m + " --quiet --markdown " + quoted(tokenizer),
        "stats " + quoted(dir / "m" / "model.safetensors") + " --quiet --export " + quoted(config)}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("is a file this run read as input; refusing to replace it"), std::string::npos)
        << args << "\n"
        << r.err;
    EXPECT_EQ(read_file(config), config_before) << args;
    EXPECT_EQ(read_file(tokenizer), tokenizer_before) << args;
  }
  write_file(dir / "m" / "old-stats.json", "old");
  auto ok = run_cli("stats " + m + " --quiet --export " + quoted(dir / "m" / "old-stats.json") + " --csv " +
                    quoted(dir / "m" / "stats.csv"));
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(read_file(dir / "m" / "old-stats.json").find("\"model_id\""), std::string::npos);
  EXPECT_TRUE(fs::exists(dir / "m" / "stats.csv"));
}

// A file that does not exist yet named two ways ("a.json" and "./a.json", a relative and an absolute name)
// is still one output: both were written, and the JSON was lost under the other.
TEST(CliOutputs, TwoSpellingsOfANewFileAreOneOutput) {
  TempDir dir;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {example() + " --export a.json --export-markdown ./a.json", "--export and --export-markdown"},
      {example() + " --export " + quoted(dir / "b.json") + " --html b.json", "--export and --html"},
      {"stats " + example() + " --export s.json --csv ./s.json", "--export and --csv"},
      {"plan " + example() + " --gpu 24GB --export p.json --markdown ../" + dir.path().filename().string() +
           "/p.json",
       "--export and --markdown"},
  };
  for (const auto& [args, named] : cases) {
    auto r = run_cli_in(dir.path(), args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(named + ": both write this file"), std::string::npos) << args << "\n" << r.err;
    EXPECT_TRUE(fs::is_empty(dir.path())) << args;
  }
}

// A new output file gets the mode the shell's `>` would give it: 0666 less the umask (it was rw-r--r--
// whatever the umask, so a private umask 077 still left reports readable by all). A replaced file keeps its
// own mode.
TEST(CliOutputs, NewOutputFilesFollowTheUmask) {
  TempDir dir;
  write_file(dir / "kept.md", "old");
  fs::permissions(dir / "kept.md", fs::perms(0664));
  for (const auto& [umask, mode] : {std::pair{"077", 0600}, {"027", 0640}, {"022", 0644}}) {
    const fs::path json = dir / (std::string("u") + umask + ".json");
    const fs::path csv = dir / (std::string("u") + umask + ".csv");
    auto r = run_shell(std::string("umask ") + umask + " && " + cli_binary() + " " + example() +
                       " --skip-tokenizer --quiet --export " + quoted(json) + " --export-markdown " +
                       quoted(dir / "kept.md") + " && " + cli_binary() + " tensors " + example() +
                       " --quiet --csv " + quoted(csv));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const fs::path& p : {json, csv}) {
      struct stat st {};
      ASSERT_EQ(::stat(p.c_str(), &st), 0) << p;
      EXPECT_EQ(st.st_mode & 0777, static_cast<mode_t>(mode)) << p << " under umask " << umask;
    }
    struct stat kept {};
    ASSERT_EQ(::stat((dir / "kept.md").c_str(), &kept), 0);
    EXPECT_EQ(kept.st_mode & 0777, 0664u) << "under umask " << umask;
  }
}

// /dev/stdout (or /dev/fd/1, or the file stdout is redirected to) is standard output: the one document
// there, the console report left out, and a second document there refused. It was written past stdio, then
// the console report (or the --json document) followed it on the same stream.
TEST(CliOutputs, DevStdoutIsStandardOutput) {
  auto piped = run_shell(cli_binary() + " " + example() + " --skip-tokenizer --export /dev/stdout | cat");
  EXPECT_EQ(piped.out.find("MODEL: tiny-llama\n"), std::string::npos) << piped.out.substr(0, 300);
  EXPECT_EQ(json::Document::parse(piped.out, "stdout").root().find("model_id")->as_string(), MA_EXAMPLE_DIR);
  auto stats = run_shell(cli_binary() + " stats " + example() + " --export /dev/fd/1 | cat");
  EXPECT_EQ(stats.out.find("SUMMARY"), std::string::npos) << stats.out.substr(0, 300);
  EXPECT_EQ(stats.out.rfind("{", 0), 0u) << stats.out.substr(0, 300);
  // stdout a regular file (run_cli's): the Markdown alone, in the file the shell opened.
  auto md = run_cli(example() + " --skip-tokenizer --export-markdown /dev/stdout");
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_EQ(md.out.rfind("# ", 0), 0u) << md.out.substr(0, 300);
  EXPECT_EQ(md.out.find("MODEL: tiny-llama\n"), std::string::npos) << md.out.substr(0, 300);
  auto csv = run_cli("tensors " + example() + " --csv /dev/stdout");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("kind,name", 0), 0u) << csv.out.substr(0, 300);
  EXPECT_EQ(csv.out.find("num_parameters:"), std::string::npos) << csv.out.substr(0, 300);
  for (const auto& [args, named] : std::vector<std::pair<std::string, std::string>>{
           {example() + " --json --export /dev/stdout", "--json and --export /dev/stdout"},
           {"tensors " + example() + " --json --csv /proc/self/fd/1", "--json and --csv /proc/self/fd/1"}}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_EQ(r.out, "") << args;
    EXPECT_NE(r.err.find(named + ": each writes to standard output"), std::string::npos) << args << "\n"
                                                                                         << r.err;
  }
}

}  // namespace
}  // namespace ma::test
