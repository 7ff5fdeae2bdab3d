/** The slot lists the injection and toxicity templates fill their sentences from. */

export const apps = [
  'Gmail',
  'Slack',
  'Jira',
  'the router admin page',
  'my bank app',
  'Netflix',
  'Outlook',
  'GitHub',
  'Zoom',
  'the school portal',
  'Notion',
  'Dropbox',
  'my Wi-Fi',
  'the company VPN',
  'LinkedIn',
  'Steam',
];
export const langs = ['Python', 'TypeScript', 'Go', 'Rust', 'Java', 'C#', 'Ruby', 'PHP', 'Kotlin', 'Swift'];
export const frameworks = [
  'Express',
  'Django',
  'Flask',
  'Spring Boot',
  'Rails',
  'Laravel',
  'Next.js',
  'FastAPI',
  'ASP.NET Core',
  'NestJS',
];
export const warnings = [
  'deprecation warning',
  'linter warning',
  'TypeScript error about implicit any',
  'npm audit warning',
  'SSL certificate warning',
  'compiler warning about unused variables',
  'yellow check-engine light',
  'low battery notification',
  'pip dependency warning',
  'warning about line endings',
];
export const bots = [
  'customer support bot',
  'recipe assistant',
  'coding tutor',
  'travel planner',
  'legal FAQ assistant',
  'HR onboarding helper',
  'math tutor for kids',
  'museum guide chatbot',
  'banking assistant',
  'language-learning partner',
];
export const personas = [
  'a pirate captain',
  'a medieval innkeeper',
  'a tour guide in Rome',
  'a job interviewer for a data engineer role',
  'Sherlock Holmes',
  'a friendly dragon',
  'a Shakespearean actor',
  'a 1920s radio host',
  'a wise old librarian',
  'a space station commander',
  'my Spanish conversation partner',
  'a grumpy but helpful chef',
];
export const topics = [
  'photosynthesis',
  'the French Revolution',
  'compound interest',
  'how vaccines work',
  'black holes',
  'the water cycle',
  'supply and demand',
  'climate change',
  'the Roman Empire',
  'machine learning',
  'plate tectonics',
  'the stock market',
];
export const devices = [
  'dishwasher',
  'washing machine',
  'printer',
  'thermostat',
  'coffee maker',
  'bike lock',
  'smart TV',
  'garage door opener',
  'baby monitor',
  'robot vacuum',
];
export const names = [
  'Alex',
  'Priya',
  'Jordan',
  'Mei',
  'Carlos',
  'Fatima',
  'Sam',
  'Olga',
  'Kenji',
  'Amara',
  'Lukas',
  'Sofia',
];
export const days = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'next week', 'tomorrow morning'];
export const times = ['9am', '10:30', 'noon', '2pm', '3:15pm', '4pm', '5pm'];
export const secTopics = [
  'prompt injection',
  'jailbreak attacks on chatbots',
  'indirect prompt injection through web pages',
  'system prompt leakage',
  'data exfiltration through markdown images',
  'SQL injection',
  'cross-site scripting',
  'phishing emails',
  'credential stuffing',
  'social engineering',
];
export const audiences = [
  'my security class',
  'our engineering blog',
  'a board presentation',
  'new hires',
  'a conference talk',
  'the compliance team',
  'my thesis',
  'a podcast episode',
];
export const foods = [
  'lasagna',
  'sourdough bread',
  'banana bread',
  'chicken curry',
  'pancakes',
  'vegetable soup',
  'chocolate chip cookies',
  'risotto',
];
export const rules = [
  'the dress code',
  'the old parking policy',
  "last year's budget template",
  'the draft schedule',
  'the first version of the agenda',
  'the previous seating chart',
  'my earlier list of requirements',
];
export const furniture = ['bookshelf', 'desk', 'bed frame', 'wardrobe', 'crib', 'TV stand', 'dining table'];
export const games = [
  'chess',
  'twenty questions',
  'a trivia quiz about geography',
  'a word association game',
  'a murder mystery',
  'tic-tac-toe',
  'a text adventure set in a haunted castle',
];
export const settings = [
  'dark mode',
  'the default font size',
  'autosave',
  'two-factor authentication',
  'notifications',
  'the proxy settings',
  'the cache',
  'telemetry',
];
export const files = [
  'config.yaml',
  '.env.example',
  'settings.json',
  'README.md',
  'docker-compose.yml',
  'package.json',
  'pyproject.toml',
];
export const noisy = [
  'the construction noise',
  "my neighbour's dog",
  'the typos in the first draft',
  'the first two chapters',
  'the background music',
  'the footnotes',
  'the outliers in the data',
  'the header row',
];
export const movies = [
  'Inception',
  'The Sixth Sense',
  'Titanic',
  'Parasite',
  'The Matrix',
  'Coco',
  'Arrival',
  'Memento',
];
